"""Subcommands come from the registry (`register_commands`), and one table of kinds drives the hooks, the
registry, the loader and `ls`: a plugin adds a command the way the core adds its own."""

from __future__ import annotations

import inspect
import types

import pytest

from conftest import REPO, harness_env, run_harness
from harness import hookspecs
from harness.cli import ls_cmd
from harness.cli.main import main
from harness.errors import UnknownNameError
from harness.plugins.loading import load_plugins
from harness.plugins.registry import KINDS, Registry

CORE_COMMANDS = (
    "run",
    "ls",
    "build",
    "diagnose",
    "demo",
    "report",
    "compare",
    "leaderboard",
    "judge-calibrate",
    "import",
    "cache",
    "new-task",
)


def test_a_plugin_command_runs_and_is_listed_everywhere(plugin_site, tmp_path):
    env = harness_env(plugin_site)
    out = run_harness(["colors-data", str(tmp_path / "data"), "--n_test", "2"], env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "data" / "colors" / "videos").iterdir())  # the command ran
    assert "colors-data" in run_harness(["--help"], env, timeout=120).stdout
    assert "python -m harness colors-data OUT" in run_harness([], env, timeout=120).stdout
    listed = run_harness(["ls", "commands"], env, timeout=120).stdout
    assert any(line.split()[:3] == ["colors-data", "colors", "0.3.1"] for line in listed.splitlines())


def test_a_plugin_commands_user_mistake_is_one_line_exit_2(plugin_site, tmp_path):
    out = run_harness(["colors-data", str(tmp_path), "--n_test", "0"], harness_env(plugin_site), timeout=120)
    assert out.returncode == 2
    assert "error: colors-data --n_test 0" in out.stderr and "Traceback" not in out.stderr


def test_help_and_usage_list_every_core_command(capsys):
    assert main([]) == 0
    usage = capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    for name in CORE_COMMANDS:
        assert f"\n  {name} " in help_text, name
        assert name == "run" or f"python -m harness {name} " in usage, name


def test_an_unknown_command_suggests_the_close_ones(capsys):
    assert main(["leaderbord", "x"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'leaderbord'" in err and "did you mean 'leaderboard'" in err


def test_a_plugin_cannot_replace_a_core_command():
    plugin = types.ModuleType("shadowing_plugin")

    @hookspecs.hookimpl
    def register_commands(register):
        register("ls", "shadowing_plugin:main", "not the real ls")
        register("shadow-extra", "shadowing_plugin:main", "a command of its own")

    plugin.register_commands = register_commands
    state = load_plugins(modules=[plugin], use_entry_points=False, kinds=("command",))
    assert state.registry.get("command", "ls").plugin == "harness"
    assert state.registry.get("command", "shadow-extra").plugin == "shadowing_plugin"
    assert any("command 'ls'" in c and "shadowing_plugin" in c for c in state.registry.conflicts)


def test_the_first_registration_of_a_name_wins():
    """Built-in plugins register before entry points and `modules`: a later plugin cannot take over a name."""
    plugin = types.ModuleType("late_plugin")

    @hookspecs.hookimpl
    def register_models(register):
        register("oracle", "late_plugin:Model", "not the baseline")

    plugin.register_models = register_models
    state = load_plugins(modules=[plugin])
    assert state.registry.get("model", "oracle").plugin == "baselines"
    assert any("model 'oracle' registered by plugin 'late_plugin' is ignored" in c for c in state.registry.conflicts)


def test_one_table_of_kinds_makes_the_hooks_the_registry_and_ls():
    names = [kind.name for kind in hookspecs.KINDS]
    assert list(KINDS) == names and "command" in names
    for kind in hookspecs.KINDS:
        spec = getattr(hookspecs, kind.hook)
        assert spec.__name__ == kind.hook and spec.__doc__ == kind.register
        assert list(inspect.signature(spec).parameters) == ["register"]
        assert Registry().names(kind.name) == []
    assert ls_cmd.WHAT == (*(kind.plural for kind in hookspecs.KINDS), "plugins")
    plugins_md = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    for kind in hookspecs.KINDS:
        assert f"  {kind.plural} " in ls_cmd.KINDS_HELP
        assert f"| {kind.name} | `{kind.hook}` | `ls {kind.plural}` |" in plugins_md, kind.name


def test_every_hook_of_the_table_registers_its_kind():
    """A plugin implementing each hook of the table gets each thing registered under its kind."""
    plugin = types.ModuleType("every_kind_plugin")
    for kind in hookspecs.KINDS:
        if kind.name == "task":
            continue

        def impl(register, name=kind.name):
            register(f"my_{name}", "every_kind_plugin:thing", f"a {name}")

        impl.__name__ = kind.hook
        setattr(plugin, kind.hook, hookspecs.hookimpl(impl))
    state = load_plugins(modules=[plugin], use_entry_points=False)
    info = {p.name: p for p in state.plugins}["every_kind_plugin"]
    assert not info.errors
    for kind in hookspecs.KINDS:
        if kind.name != "task":
            assert state.registry.get(kind.name, f"my_{kind.name}").plugin == "every_kind_plugin"
    with pytest.raises(UnknownNameError, match="ls commands"):
        state.registry.get("command", "my_commandd")
