"""Results lm-eval can read: lm-eval's top-level keys, flat "<metric>,none" entries and alias, wall times,
beside the harness's own structure; read by lm-eval's own `make_table` where lm-eval is installed
(HARNESS_LM_EVAL_PYTHON: an interpreter with `pip install lm-eval`), else checked against its documented keys."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import PLUGIN_PKG
from harness.config.run import RunConfig
from harness.engine.runner import rescore, run
from harness.plugins.loading import load_plugins
from harness.results.lm_eval_keys import mean_stderr
from harness.results.writer import read_samples, validate_results

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


@pytest.fixture
def outcome(tmp_path, colors_root, with_plugin):
    cfg = RunConfig(
        tasks=["colors_all"],
        model="counting",
        model_args={"wrong_every": 3},
        data=colors_root,
        limit=10,
        output_path=tmp_path / "out",
        log_samples=True,
        cache_dir=tmp_path / "cache",
        include_path=[str(TASKS_DIR)],
        progress=False,
    )
    return run(cfg, load_plugins())


def test_lm_eval_keys_sit_beside_the_harness_structure(outcome):
    res = json.loads(outcome.results_path.read_text())
    validate_results(res)  # the harness's own structure is unchanged
    task = res["results"]["colors_qa"]
    acc = task["metrics"]["accuracy"]
    assert task["alias"] == "colors_qa"
    assert task["accuracy,none"] == acc["value"]
    values = [r["scores"]["accuracy"] for r in read_samples(outcome.samples_paths["colors_qa"])]
    assert task["accuracy_stderr,none"] == pytest.approx(mean_stderr(values), abs=1e-9) and 0 < mean_stderr(
        values
    )
    assert res["versions"]["colors_qa"] == 1
    assert res["n-shot"]["colors_qa"] == 0
    assert res["higher_is_better"]["colors_qa"] == {"accuracy": True}
    assert res["n-samples"]["colors_qa"] == {"original": 24, "effective": 10}
    assert res["configs"]["colors_qa"]["task"] == "colors_qa"
    assert res["group_subtasks"]["colors_all"] and res["groups"]["colors_all"]["alias"] == "colors_all"
    assert "accuracy,none" in res["groups"]["colors_all"]
    assert res["end_time"] >= res["start_time"] == res["date"]
    assert float(res["total_evaluation_time_seconds"]) >= 0


def test_rescore_keeps_the_lm_eval_keys(outcome, tmp_path):
    out = rescore([outcome.samples_paths["colors_qa"]], [str(TASKS_DIR)], tmp_path / "re")
    task = out.results["results"]["colors_qa"]
    assert task["accuracy,none"] == task["metrics"]["accuracy"]["value"]
    assert out.results["n-samples"]["colors_qa"]["original"] == 24


MAKE_TABLE = r"""
import json, sys
from lm_eval.utils import make_table
res = json.load(open(sys.argv[1]))
print(make_table(res))
if "groups" in res:
    print(make_table(res, "groups"))
"""


def test_lm_eval_make_table_reads_the_file(outcome, tmp_path):
    python = os.environ.get("HARNESS_LM_EVAL_PYTHON")
    if not python:
        pytest.skip("set HARNESS_LM_EVAL_PYTHON to an interpreter with lm-eval installed")
    (tmp_path / "t.py").write_text(MAKE_TABLE)
    proc = subprocess.run(
        [python, str(tmp_path / "t.py"), str(outcome.results_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(outcome.results_path.read_text())
    row = next(line for line in proc.stdout.splitlines() if "colors_qa " in line and "|accuracy" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    # Tasks | Version | Filter | n-shot | Metric | (arrow) | Value | ± | Stderr
    assert cells[1:5] == ["1", "none", "0", "accuracy"] and cells[5] == "↑"
    assert float(cells[6]) == pytest.approx(res["results"]["colors_qa"]["accuracy,none"], abs=1e-4)
    assert float(cells[8]) == pytest.approx(res["results"]["colors_qa"]["accuracy_stderr,none"], abs=1e-4)
    group = next(line for line in proc.stdout.splitlines() if line.startswith("|colors_all"))
    assert "accuracy" in group
