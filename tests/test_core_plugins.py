"""Plugin discovery: entry points, --include_path, HARNESS_PLUGINS, broken plugins, did-you-mean."""

from __future__ import annotations

import pytest

from conftest import PLUGIN_PKG, harness_env, run_harness, write_dist_info
from harness.api import registry
from harness.errors import UnknownNameError
from harness.plugins.loading import load_plugins


def test_entry_point_plugin_registers_tasks_and_models(with_plugin):
    state = load_plugins()
    info = {p.name: p for p in state.plugins}["colors"]
    assert info.version == "0.3.1" and not info.errors
    assert {"colors_qa", "colors_qa_color", "colors_all"} <= set(info.registered["task"])
    assert state.registry.get("task", "colors_all").extra["group"]
    assert state.registry.get("model", "counting").plugin == "colors"
    assert {"random", "prior", "oracle"} <= set(state.registry.names("model"))


def test_the_shared_registry_is_loaded_once_and_sees_plugins_installed_later(plugin_site, monkeypatch):
    """harness.api.registry() is loaded once per process, yet never stale: a plugin installed after the first
    load (its entry point now visible), or HARNESS_PLUGINS set later, is what the next call sees."""
    before = registry()
    assert registry() is before and not before.has("model", "counting")  # loaded once, not on every call
    monkeypatch.syspath_prepend(str(PLUGIN_PKG))
    monkeypatch.syspath_prepend(str(plugin_site))
    assert registry().get("model", "counting").plugin == "colors"
    monkeypatch.setenv("HARNESS_PLUGINS", "baselines")
    assert not registry().has("model", "counting") and registry().has("model", "random")
    monkeypatch.undo()
    assert registry() is before  # uninstalled again: the first load serves


def test_include_path_registers_task_folder():
    state = load_plugins(include_paths=[PLUGIN_PKG / "harness_colors" / "tasks"], use_entry_points=False)
    assert "colors_qa" in state.registry.names("task")
    assert state.registry.get("task", "colors_qa").plugin.startswith("include:")


def test_missing_include_path_is_reported_not_fatal(tmp_path):
    state = load_plugins(include_paths=[tmp_path / "nope"], use_entry_points=False)
    assert any("does not exist" in e for p in state.broken() for e in p.errors)


def test_broken_plugins_are_reported_and_others_still_load(with_plugin, tmp_path, monkeypatch):
    site = tmp_path / "site"
    write_dist_info(
        site,
        "harness-broken",
        "9.9",
        {"broken_import": "harness_broken_import", "broken_hook": "harness_broken_hook"},
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(PLUGIN_PKG / "broken_plugin"))
    state = load_plugins()
    broken = {p.name: p.errors for p in state.broken()}
    assert "broken on purpose" in broken["broken_import"][0]
    assert "registration fails on purpose" in broken["broken_hook"][0]
    assert "colors_qa" in state.registry.names("task")  # the healthy plugin still loaded


def test_harness_plugins_env_restricts_loading(with_plugin):
    state = load_plugins(env={"HARNESS_PLUGINS": "baselines"})
    assert [p.name for p in state.plugins] == ["harness", "baselines"]  # the core's commands always load
    assert "colors_qa" not in state.registry.names("task")


def test_unknown_names_suggest_close_ones(with_plugin):
    state = load_plugins()
    with pytest.raises(UnknownNameError) as exc:
        state.registry.get("task", "colors_q")
    assert "did you mean" in str(exc.value) and "'colors_qa'" in str(exc.value)
    with pytest.raises(UnknownNameError, match="oracle"):
        state.registry.get("model", "orcale")


def test_cli_ls_and_unknown_model(plugin_site):
    env = harness_env(plugin_site)
    out = run_harness(["ls", "plugins"], env)
    assert out.returncode == 0, out.stderr
    assert "colors" in out.stdout and "0.3.1" in out.stdout
    out = run_harness(["ls", "tasks"], env)
    assert "colors_qa" in out.stdout and "(group)" in out.stdout
    out = run_harness(["--tasks", "colors_qa", "--model", "oracel"], env)
    assert out.returncode == 2
    assert "unknown model 'oracel'" in out.stderr and "did you mean 'oracle'" in out.stderr


def test_include_path_task_runs_end_to_end(tmp_path, colors_root):
    env = harness_env(None)  # the plugin package is NOT installed: only its task folder is given
    tasks = PLUGIN_PKG / "harness_colors" / "tasks"
    out = run_harness(
        [
            "--tasks",
            "colors_qa",
            "--model",
            "oracle",
            "--include_path",
            str(tasks),
            "--data",
            str(colors_root),
            "--cache_dir",
            str(tmp_path / "c"),
            "--output_path",
            str(tmp_path / "o"),
        ],
        env,
    )
    assert out.returncode == 0, out.stderr
    assert "| colors_qa | accuracy | 1.0000 |" in out.stdout
