"""The wheel is the product: built from the tree with `python -m build`, installed non-editable into a fresh
venv and run from a folder outside the checkout that holds its own tasks/, models/, metrics/ and builders/
packages, it lists every built-in task and its oracle scores 100 % on every demo task of each benchmark.

The fresh venv reuses the dependencies already installed here (a .pth naming this interpreter's
site-packages folders: a plain path line, so the checkout's editable finder there is never activated) and
gets the project itself only from the wheel (`pip install --no-deps --no-index`); the test checks that every
project package imports from the venv, never from the checkout. `make test-wheel` (part of `make test`)
runs this file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import PACKAGE_DIRS, REPO
from harness.plugins.loading import load_plugins

TOP_FILES = ("setup.cfg", "setup.py", "pyproject.toml", "README.md")
USER_FOLDERS = ("tasks", "models", "metrics", "builders")
USER_PACKAGE = 'raise ImportError("the user\'s own {name}/ package was imported by the harness")\n'


def _tree_files() -> list[str]:
    """The files of the project's packages as a clean clone has them (tracked or new, never ignored)."""
    folders = list(PACKAGE_DIRS.values())
    proc = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "--", *folders],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        pytest.skip(f"not a git checkout: {proc.stderr.strip()}")
    return sorted(f for f in proc.stdout.splitlines() if (REPO / f).is_file())


def _installed_name(tree_path: str) -> str:
    """tasks/cyclist/configs/x.yaml -> harness_tasks/cyclist/configs/x.yaml (setup.cfg's package_dir)."""
    folder, rest = tree_path.split("/", 1)
    (name,) = [k for k, v in PACKAGE_DIRS.items() if v == folder]
    return f"{name}/{rest}"


def _dependency_paths() -> list[str]:
    """This interpreter's site-packages folders: what the fresh venv may import its dependencies from."""
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]


@pytest.fixture(scope="module")
def wheel_install(tmp_path_factory) -> dict:
    """Build sdist and wheel from a copy of the tree, install the wheel into a fresh venv; paths of each."""
    base = tmp_path_factory.mktemp("wheel")
    files = _tree_files()
    src = base / "src"
    for rel in [*TOP_FILES, *files]:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    dist = base / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True).strip())
    (site / "_harness_test_deps.pth").write_text("\n".join(_dependency_paths()) + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index"]
    installed = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr[-3000:]
    project = base / "project"  # a researcher's own folder, with packages named like the repository's folders
    for name in USER_FOLDERS:
        (project / name).mkdir(parents=True)
        (project / name / "__init__.py").write_text(USER_PACKAGE.format(name=name))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HARNESS_PLUGINS")}
    env["HARNESS_CACHE_DIR"] = str(base / "cache")
    return {"files": files, "wheel": wheel, "sdist": sdist, "python": python, "project": project, "env": env}


def _harness(install: dict, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(install["python"]), "-m", "harness", *args],
        cwd=install["project"], env=install["env"], capture_output=True, text=True, timeout=timeout,
    )


def test_wheel_and_sdist_ship_every_file_of_the_tree(wheel_install):
    in_wheel = set(zipfile.ZipFile(wheel_install["wheel"]).namelist())
    missing = [f for f in wheel_install["files"] if _installed_name(f) not in in_wheel]
    assert not missing, f"the wheel lacks {len(missing)} files of the tree: {missing[:20]}"
    with tarfile.open(wheel_install["sdist"]) as tar:
        in_sdist = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    missing = [f for f in [*TOP_FILES, *wheel_install["files"]] if f not in in_sdist]
    assert not missing, f"the sdist lacks {len(missing)} files of the tree: {missing[:20]}"
    data = [f for f in wheel_install["files"] if f.endswith((".yaml", ".jinja", ".json"))]
    assert len(data) >= 50, "task YAMLs, templates, question templates and schemas are among the files compared"


def test_the_installed_wheel_imports_from_the_venv_not_the_checkout(wheel_install):
    code = "import importlib; print('\\n'.join(importlib.import_module(m).__file__ for m in {!r}))"
    proc = subprocess.run(
        [str(wheel_install["python"]), "-c", code.format(sorted(PACKAGE_DIRS))],
        cwd=wheel_install["project"], env=wheel_install["env"], capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    venv = str(wheel_install["python"].parent.parent)
    assert all(line.startswith(venv) for line in proc.stdout.splitlines()), proc.stdout


def test_ls_tasks_from_a_users_folder_lists_every_builtin_task(wheel_install):
    proc = _harness(wheel_install, "ls", "tasks")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    listed = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
    assert listed == set(load_plugins().registry.names("task"))


def test_the_demo_builds_each_benchmark_and_the_oracle_scores_100_percent(wheel_install, tmp_path):
    out = tmp_path / "demo"
    proc = _harness(wheel_install, "demo", "--out", str(out), "--models", "oracle", timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]  # exit 5 when an oracle is below 100 %
    rows = [line.split(" | ") for line in (out / "summary.md").read_text().splitlines() if "| oracle |" in line]
    benchmarks = {row[0].strip("| ") for row in rows}
    assert benchmarks == {"cyclist", "tempcloze", "rvtbench"}
    assert all(row[4] == "1.000" and int(row[6].strip(" |")) > 0 for row in rows), rows


BUILDS = (  # the README tour's builds, small: each benchmark from a seed, then one task of each with the oracle
    ("cyclist", "--tier", "L1", "--split", "test", "--num-scenes", "3", "--out", "data/cyclist"),
    ("tempcloze", "--videos", "data/cyclist/videos/unicycle/test", "--min-sharpness", "0", "--min-motion", "0",
     "--out", "data/tempcloze", "--virtual"),
    ("rvtbench", "--from-synthetic", "data/cyclist", "--out", "data/rvtbench"),
)


@pytest.mark.slow
def test_each_benchmark_builds_with_items_and_the_oracle_scores_100_percent(wheel_install):
    for args in BUILDS:
        proc = _harness(wheel_install, "build", *args, "--no-progress", timeout=900)
        assert proc.returncode == 0, f"build {args[0]}: {proc.stderr[-3000:]}"
    for task in ("cyclist_l1", "tempcloze_all", "rvtbench_vqa"):
        args = ["--tasks", task, "--model", "oracle", "--data", "data", "--output_path", f"out/{task}"]
        proc = _harness(wheel_install, *args, timeout=900)
        assert proc.returncode == 0, f"{task}: {proc.stderr[-3000:]}"
        (results,) = (wheel_install["project"] / "out" / task / "oracle").glob("results_*.json")
        res = json.loads(results.read_text())["task_results"][task]
        assert res["n_scored"] > 0 and res["metrics"][res["headline"]]["value"] == pytest.approx(1.0, abs=1e-4)
