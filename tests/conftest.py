"""Shared fixtures: the third-party-style test plugin (installed through a dist-info folder) and its data."""

from __future__ import annotations

import configparser
import os
import re
import socket
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from harness.config.run import RunConfig
from harness.engine.runner import run

TESTS = Path(__file__).parent
REPO = TESTS.parent
PLUGIN_PKG = TESTS / "plugin_pkg"


def package_dirs() -> dict[str, str]:
    """setup.cfg's `package_dir`: each installed import name -> its folder in the repository."""
    cfg = configparser.RawConfigParser()
    cfg.read(REPO / "setup.cfg", encoding="utf-8")
    lines = cfg["options"]["package_dir"].strip().splitlines()
    return {k.strip(): v.strip() for k, v in (line.split("=", 1) for line in lines)}


PACKAGE_DIRS = package_dirs()


def write_dist_info(site: Path, dist: str, version: str, entry_points: dict[str, str]) -> None:
    """Make `site` look like a site-packages holding distribution `dist` with these harness entry points."""
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    lines = ["[harness]"] + [f"{k} = {v}" for k, v in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="session", autouse=True)
def private_harness_cache(tmp_path_factory):
    """A harness cache of this test process's own (each xdist worker has one), never the user's
    ~/.cache/video-harness: runs without a cache_dir start cold as on CI, and workers never share a sqlite."""
    patch = pytest.MonkeyPatch()
    patch.setenv("HARNESS_CACHE_DIR", str(tmp_path_factory.mktemp("harness-cache")))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory) -> Path:
    """A site folder where the test plugin is 'installed' (entry point `colors`)."""
    site = tmp_path_factory.mktemp("site")
    write_dist_info(site, "harness-colors", "0.3.1", {"colors": "harness_colors.plugin"})
    return site


@pytest.fixture
def with_plugin(plugin_site, monkeypatch):
    """The test plugin importable and discoverable in this process."""
    monkeypatch.syspath_prepend(str(PLUGIN_PKG))
    monkeypatch.syspath_prepend(str(plugin_site))
    return plugin_site


@pytest.fixture(scope="session")
def rvtbench_demo(tmp_path_factory) -> Path:
    """The RVTBench builder's demo set (every task type, from a tiny CycliST build), read-only: copy to change."""
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    (ds,) = RvtbenchBuilder().demo(tmp_path_factory.mktemp("rvtdemo"), 0)
    return ds.data_dir


@pytest.fixture
def scripted(tmp_path, monkeypatch):
    """The scripted RVTBench test plugin (harness_rvtscripted) installed through a dist-info folder."""
    site = tmp_path / "site"
    write_dist_info(site, "harness-rvtscripted", "0.1.0", {"rvtscripted": "harness_rvtscripted.plugin"})
    monkeypatch.syspath_prepend(str(PLUGIN_PKG))
    monkeypatch.syspath_prepend(str(site))
    return site


@pytest.fixture
def evaluate_offline(monkeypatch, tmp_path):
    """The `evaluate` package with the hubs switched off and a private HF home (skips where it is missing)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    return pytest.importorskip("evaluate")


@pytest.fixture(scope="session")
def colors_root(tmp_path_factory) -> Path:
    """A data root whose `colors/` folder holds the test plugin's dataset."""
    sys.path.insert(0, str(PLUGIN_PKG))
    try:
        from harness_colors.dataset import make_dataset
    finally:
        sys.path.remove(str(PLUGIN_PKG))
    root = tmp_path_factory.mktemp("data")
    make_dataset(root / "colors")
    return root


def task_folder(folder: Path, file: str, yaml_text: str) -> Path:
    """`folder` (made when missing) holding the task YAML `file`, its text dedented: an --include_path folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file).write_text(textwrap.dedent(yaml_text))
    return folder


def run_in(tmp_path: Path, tasks: list[str], model: str, data, state=None, **options):
    """One in-process run with its outputs (samples logged) and caches under `tmp_path` ("o", "c")."""
    options = {"output_path": tmp_path / "o", "cache_dir": tmp_path / "c", "log_samples": True, **options}
    config = RunConfig(tasks=tasks, model=model, data=data, **options)
    return run(config) if state is None else run(config, state)


def harness_env(plugin_site: Path | None = None, **extra: str) -> dict[str, str]:
    """Environment for `python -m harness` subprocesses, with the test plugin installed when given."""
    env = dict(os.environ)
    paths = [str(REPO)]
    if plugin_site is not None:
        paths += [str(PLUGIN_PKG), str(plugin_site)]
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra)
    return env


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (bound to port 0, then released), for a server or torchrun's
    rendezvous: a fixed or pid-derived port can collide between parallel test workers or with another run."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bind_unix_socket(path: Path) -> None:
    """Leave a Unix socket file at `path`, however long the path (TMPDIR under xdist can be): AF_UNIX names
    are limited to ~107 bytes, so the socket binds by its bare name from inside its folder."""
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(path.name)
    finally:
        os.chdir(here)


def torchrun_harness(torchrun: str, args: list[str], env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python -m harness ARGS` as two gloo ranks under torchrun, on a free rendezvous port."""
    cmd = [torchrun, "--nproc_per_node", "2", "--master_port", str(free_port()), "-m", "harness", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def run_harness(
    args: list[str], env: dict[str, str], timeout: float = 300, **kw
) -> subprocess.CompletedProcess:
    """Run `python -m harness ARGS` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )


@pytest.fixture
def figures(monkeypatch) -> list:
    """Every matplotlib figure the report's plot helpers render in the test (captured where they become PNG
    bytes), for layout checks with harness.report.plots.layout_problems."""
    from harness.report import plots

    captured = []
    real = plots._png

    def capture(fig):
        captured.append(fig)
        return real(fig)

    monkeypatch.setattr(plots, "_png", capture)
    return captured


_HIDE_PACKAGES = '''
import sys
from importlib.abc import MetaPathFinder

class _NotInstalled(MetaPathFinder):
    """Acts as if these packages were not installed (written by tests/conftest.py `without_packages`)."""
    BLOCKED = set({blocked!r})

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
'''


def without_packages(env: dict[str, str], folder: Path, *packages: str) -> dict[str, str]:
    """`env` for a subprocess in which `packages` cannot be imported (a sitecustomize in `folder`, put first
    on PYTHONPATH, installs a meta-path blocker), as in an install without the extra that provides them."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(_HIDE_PACKAGES.format(blocked=sorted(packages)))
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def extras_modules() -> list[str]:
    """Top-level modules, installed here, of the packages that only setup.cfg's extras require."""
    cfg = configparser.RawConfigParser()
    cfg.read(REPO / "setup.cfg")

    def names(text: str) -> set[str]:
        return {_norm(m.group(0)) for line in text.splitlines() if (m := re.match(r"\s*([A-Za-z0-9][\w.-]*)", line))}

    extra = set().union(*(names(v) for v in cfg["options.extras_require"].values()))
    only_extra = extra - names(cfg["options"]["install_requires"])
    return sorted(m for m, dists in metadata.packages_distributions().items() if only_extra & {_norm(d) for d in dists})


def core_install_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """harness_env as in a core install (`make demo`): every extra's packages hidden (a sitecustomize in
    `tmp_path/site`) and a stub `java` (`tmp_path/bin`) first on the PATH, the case where the caption metrics
    once reached for pycocoevalcap, which only the `test` extra has."""
    env = without_packages(harness_env(None), tmp_path / "site", *extras_modules())
    env.pop("HARNESS_PTB_TOKENIZER", None)
    env.update(extra)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "java").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "bin" / "java").chmod(0o755)
    env["PATH"] = f"{tmp_path / 'bin'}:{env['PATH']}"
    return env
