"""Subcommands come from the registry (`register_commands`), and one table of kinds drives the hooks, the
registry, the loader and `ls`: a plugin adds a command the way the core adds its own."""

from __future__ import annotations

import inspect
import subprocess
import sys
import types

import pytest

from conftest import REPO, harness_env, run_harness
from harness import hookspecs
from harness.cli import ls_cmd
from harness.cli.main import main
from harness.errors import PluginConflictError, UnknownNameError
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
    """A plugin registering a core command's name is an error naming both, never a silent winner."""
    plugin = types.ModuleType("shadowing_plugin")

    @hookspecs.hookimpl
    def register_commands(register):
        register("ls", "shadowing_plugin:main", "not the real ls")

    plugin.register_commands = register_commands
    with pytest.raises(PluginConflictError) as caught:
        load_plugins(modules=[plugin], use_entry_points=False, kinds=("command",))
    assert "command 'ls' is registered twice" in str(caught.value)
    assert "plugin 'harness'" in str(caught.value) and "plugin 'shadowing_plugin'" in str(caught.value)
    assert caught.value.exit_code == 2


def test_a_name_registered_twice_is_an_error_naming_both_plugins():
    """Before: the first registration won and the second was only logged."""
    plugin = types.ModuleType("late_plugin")

    @hookspecs.hookimpl
    def register_models(register):
        register("oracle", "late_plugin:Model", "not the baseline")

    plugin.register_models = register_models
    with pytest.raises(PluginConflictError, match="model 'oracle' is registered twice: by plugin 'baselines'"):
        load_plugins(modules=[plugin])


def test_two_include_folders_defining_one_task_are_an_error_naming_both(tmp_path, capsys):
    """Before: whichever folder came first ran, without a word."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "t.yaml").write_text("task: twice_defined\ndataset: {source: null}\n")
    argv = ["ls", "tasks", "--include_path", str(tmp_path / "a"), "--include_path", str(tmp_path / "b")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "task 'twice_defined' is registered twice" in err
    assert str(tmp_path / "a" / "t.yaml") in err and str(tmp_path / "b" / "t.yaml") in err


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


def test_output_cut_short_by_its_reader_stops_quietly(tmp_path):
    """`python -m harness ls tasks | head -1`: before, the command printed 'error: Broken pipe; check the path and
    the disk it is on', a wrong diagnosis; now it stops quietly with 141, as a writer into a closed pipe does."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "ls", "tasks"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=harness_env(),
    )
    proc.stdout.close()  # the reader leaves before the first line (the interpreter takes far longer to start)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and "error" not in err and "Traceback" not in err, err
