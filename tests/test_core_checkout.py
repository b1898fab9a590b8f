"""A checkout that just works: plugins from the source tree, --help, --verbosity, portable locks, declared deps."""

from __future__ import annotations

import ast
import configparser
import re
import subprocess
import sys
import threading
from importlib import metadata

from conftest import PACKAGE_DIRS, REPO, harness_env, run_harness
from harness.cache.locking import exclusive_lock
from harness.plugins import loading as plugins
from harness.plugins.loading import load_plugins, source_tree_plugins


def _setup_entry_points() -> dict[str, str]:
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    lines = cfg["options.entry_points"]["harness"].strip().splitlines()
    return dict(tuple(x.strip() for x in line.split("=")) for line in lines)


def test_every_builtin_plugin_is_found_in_the_source_tree():
    assert set(source_tree_plugins()) == set(_setup_entry_points().values())


def test_builtin_plugins_load_without_any_entry_point(monkeypatch):
    monkeypatch.setattr(plugins, "_entry_points", lambda: [])
    state = load_plugins()
    assert not state.broken()
    assert {"cyclist_l1", "tempcloze_hard"} <= set(state.registry.names("task"))
    assert {"random", "oracle", "hf"} <= set(state.registry.names("model"))
    # named by their setup.cfg entry point only when one exists; here none does, so by module
    assert "harness_models.baselines.plugin" in {p.name for p in state.plugins}


def test_builtin_and_entry_point_register_once_under_the_entry_point_name():
    state = load_plugins()
    names = [p.name for p in state.plugins]
    assert len(names) == len(set(names))
    assert set(_setup_entry_points()) <= set(names)
    builtin = {p.name: p for p in state.plugins if p.name in _setup_entry_points()}
    assert all(p.source.startswith("source tree") for p in builtin.values())
    assert not state.registry.conflicts


def test_stale_project_entry_point_is_skipped(monkeypatch):
    dist = metadata.distribution("video-harness") if _installed() else None
    if dist is None:
        return
    stale = metadata.EntryPoint("gone_plugin", "tasks.gone.plugin", "harness")
    stale = stale._for(dist) if hasattr(stale, "_for") else stale
    real = plugins._entry_points
    monkeypatch.setattr(plugins, "_entry_points", lambda: [*real(), stale])
    state = load_plugins()
    assert "gone_plugin" not in {p.name for p in state.plugins} and not state.broken()


def _installed() -> bool:
    try:
        metadata.distribution("video-harness")
    except metadata.PackageNotFoundError:
        return False
    return True


def test_help_lists_the_subcommands():
    proc = run_harness(["--help"], harness_env(), timeout=60)
    assert proc.returncode == 0
    for sub in ("ls", "build", "report", "compare", "leaderboard", "judge-calibrate", "--verbosity"):
        assert sub in proc.stdout


def test_verbosity_sets_the_log_level_and_rejects_unknown_levels():
    env = harness_env(HARNESS_PLUGINS="baselines")
    debug = run_harness(["--verbosity", "debug", "ls", "models"], env, timeout=60)
    assert debug.returncode == 0 and "DEBUG harness" in debug.stderr
    quiet = run_harness(["ls", "models", "--verbosity=ERROR"], env, timeout=60)
    assert quiet.returncode == 0 and "DEBUG" not in quiet.stderr
    bad = run_harness(["--verbosity", "LOUD", "ls", "models"], env, timeout=60)
    assert bad.returncode == 2 and "LOUD" in bad.stderr and "Traceback" not in bad.stderr


def test_core_imports_without_fcntl():
    """Windows has no fcntl: the core, the frame cache and the CLI must import (and lock) without it."""
    code = (
        "import sys; sys.modules['fcntl'] = None\n"
        "import os; os.name = 'posix'\n"
        "import harness.api, harness.frames, harness.engine.runner, harness.cli.main, harness.frames.cache\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=harness_env(), capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_exclusive_lock_excludes_a_second_holder(tmp_path):
    lock = tmp_path / "cache" / ".lock"
    acquired = threading.Event()

    def second() -> None:
        with exclusive_lock(lock):
            acquired.set()

    with exclusive_lock(lock):
        t = threading.Thread(target=second)
        t.start()
        assert not acquired.wait(0.3)  # blocked while the first holder keeps it
    t.join(10)
    assert acquired.is_set()


# import name -> distribution, where they differ and the package may not be installed here
_DIST_OF = {"bpy": "bpy", "cv2": "opencv-python-headless", "PIL": "Pillow", "yaml": "pyyaml"}


def _declared() -> set[str]:
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    reqs = cfg["options"]["install_requires"].splitlines()
    for extra in cfg["options.extras_require"].values():
        reqs += extra.splitlines()
    names = {re.split(r"[<>=!~;\[ ]", r.strip(), maxsplit=1)[0].lower() for r in reqs if r.strip()}
    return {n.replace("_", "-") for n in names if n and not n.startswith("%")}


def _third_party_imports() -> set[str]:
    project = {*PACKAGE_DIRS, "harness_colors"}
    found = set()
    for folder in PACKAGE_DIRS.values():
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    mods = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    mods = [node.module]
                else:
                    continue
                for m in mods:
                    top = m.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in project:
                        found.add(top)
    return found


def test_every_imported_package_is_declared_in_setup_cfg():
    declared = _declared()
    known = metadata.packages_distributions()
    missing = []
    for top in sorted(_third_party_imports()):
        dists = [_DIST_OF[top]] if top in _DIST_OF else known.get(top, [top])
        if not any(d.lower().replace("_", "-") in declared for d in dists):
            missing.append(f"{top} (distribution {dists})")
    assert not missing, f"imported but not declared in setup.cfg: {missing}"
