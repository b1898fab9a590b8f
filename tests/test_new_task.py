"""A plugin author's path: `python -m harness new-task NAME` writes a plugin that installs as a package (a
wheel built by pip, no network) and, as generated, scores 100 % with the oracle; its own test passes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import harness_env, run_harness
from harness.cli.main import main as cli_main
from harness.cli.new_task_cmd import check_name
from harness.errors import ConfigError


def _install(project, target) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index"]
    proc = subprocess.run([*cmd, "--target", str(target), str(project)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_a_new_task_installs_as_a_package_and_the_oracle_scores_100_percent(tmp_path):
    project = tmp_path / "my_bench"
    assert cli_main(["new-task", "my_bench", "--out", str(project)]) == 0
    site = tmp_path / "site"
    _install(project, site)  # a wheel: the YAML and the template ship as package data
    shipped = {p.relative_to(site).as_posix() for p in (site / "my_bench").rglob("*") if p.is_file()}
    assert {"tasks/my_bench.yaml", "tasks/prompt.jinja", "tasks/hooks.py", "plugin.py"} <= {s.split("/", 1)[1] for s in shipped}
    env = harness_env(None)
    env["PYTHONPATH"] = f"{site}:{env['PYTHONPATH']}"
    listed = run_harness(["ls", "tasks"], env, timeout=120)
    assert listed.returncode == 0 and "my_bench" in listed.stdout, listed.stdout + listed.stderr
    work = tmp_path / "work"  # outside the project folder: only the installed package can be found
    work.mkdir()
    made = subprocess.run([sys.executable, "-m", "my_bench.make_data", "data"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    args = ["--tasks", "my_bench", "--model", "oracle", "--data", "data", "--output_path", "out", "--cache_dir", "c"]
    r = run_harness(args, env, timeout=300, cwd=work)
    assert r.returncode == 0, r.stderr
    (results,) = (work / "out").rglob("results_*.json")
    res = json.loads(results.read_text())["task_results"]["my_bench"]
    assert res["metrics"]["accuracy"]["value"] == 1.0 and res["n_scored"] == 6 and not res.get("n_invalid")
    test = subprocess.run(  # the generated test, as its author runs it
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(project / "tests")],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )
    assert test.returncode == 0, test.stdout[-2000:]


def test_a_name_that_cannot_be_a_package_or_a_used_folder_is_refused(tmp_path, capsys):
    for bad in ("My-Bench", "class", "9lives", "harness_x"):
        with pytest.raises(ConfigError, match="cannot name a task package"):
            check_name(bad)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x.txt").write_text("mine\n")
    assert cli_main(["new-task", "my_bench", "--out", str(tmp_path / "taken")]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (tmp_path / "taken" / "x.txt").read_text() == "mine\n"
