"""Results files written before the schema change (version 1, frozen in tests/fixtures/results_v1: a
colors_all run of the counting model) still work everywhere: report, compare, leaderboard and --rescore read
them through harness.results.upgrade; and leaderboard ranks any folder of runs and rescores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import PLUGIN_PKG
from harness.engine.rescoring import rescore
from harness.plugins.registry import Registry
from harness.report.compare import compare_runs
from harness.report.engine import build_report, write_report
from harness.report.leaderboard import build_leaderboard
from harness.report.loading import load_run, load_runs
from harness.results.upgrade import ResultsVersionError, upgrade_results
from harness.results.writer import validate_results

FIXTURE = Path(__file__).parent / "fixtures" / "results_v1" / "counting"
TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


def _v1() -> dict:
    (path,) = FIXTURE.glob("results_*.json")
    return json.loads(path.read_text())


@pytest.fixture
def v1_folder(tmp_path) -> Path:
    folder = tmp_path / "runs" / "counting"
    shutil.copytree(FIXTURE, folder)
    return folder


def test_a_version_1_file_reads_as_the_current_schema():
    old = _v1()
    assert old["schema_version"] == 1 and "metrics" in old["results"]["colors_qa"]
    new = upgrade_results(old, "v1.json")
    validate_results({k: v for k, v in new.items() if k != "upgraded_from_schema"} | {"schema_version": 2})
    assert new["task_results"]["colors_qa"]["metrics"] == old["results"]["colors_qa"]["metrics"]
    assert "alias" not in new["task_results"]["colors_qa"] and "accuracy,none" not in new["task_results"]["colors_qa"]
    assert new["results"]["colors_qa"]["accuracy,none"] == old["results"]["colors_qa"]["accuracy,none"]
    assert new["results"]["colors_qa"]["accuracy_stderr,none"] == old["results"]["colors_qa"]["accuracy_stderr,none"]
    assert new["group_results"]["colors_all"]["tasks"] == old["groups"]["colors_all"]["tasks"]
    assert new["config"]["model_args"] == "wrong_every=3" and new["git_hash"] == old["config"]["git_hash"]
    assert new["date"] == old["date"] and new["upgraded_from_schema"] == 1
    assert new["config"]["random_seed"] is None  # written before the harness seeded the generators
    seeded = upgrade_results({**old, "config": {**old["config"], "random_seed": 0, "numpy_seed": 1234}}, "v1.json")
    assert (seeded["config"]["random_seed"], seeded["config"]["numpy_seed"]) == (0, 1234)  # kept as recorded
    assert old["schema_version"] == 1  # the input is left as it was


def test_a_newer_schema_version_is_refused_naming_the_file():
    with pytest.raises(ResultsVersionError, match=r"future\.json: results schema_version 99"):
        upgrade_results({"schema_version": 99}, "future.json")


def test_report_reads_a_version_1_folder(v1_folder, tmp_path):
    runs = load_runs([v1_folder])
    assert [r["_label"] for r in runs] == ["counting"]
    files = write_report(build_report(runs, Registry()), tmp_path / "report")
    text = files.markdown.read_text()
    assert "colors_qa" in text and "70.0" in text


def test_rescore_and_compare_and_leaderboard_read_version_1(v1_folder, with_plugin):
    samples = sorted(v1_folder.glob("samples_*.jsonl"))
    out = rescore(samples, [str(TASKS_DIR)], v1_folder)
    assert out.results["schema_version"] == 2 and "upgraded_from_schema" not in out.results
    seeds = tuple(out.results["config"][k] for k in ("random_seed", "numpy_seed", "torch_seed"))
    assert seeds == (out.results["config"]["seed"], 1234, 1234)  # the seeds this rescore set
    validate_results(json.loads(out.results_path.read_text()))
    (old_path,) = v1_folder.glob("results_2*.json")
    old, new = load_run(old_path), load_run(out.results_path)
    cmp = compare_runs(old, new)
    assert cmp.deltas and not cmp.regressions() and not cmp.mismatches
    board = build_leaderboard(load_runs([v1_folder.parent], with_samples=False))
    assert sorted(e.model for e in board.entries) == ["counting", "counting (rescored)"]
    assert all(e.score == pytest.approx(0.7) for e in board.entries)


def test_leaderboard_over_a_run_and_a_rescore_without_its_results_file(v1_folder, tmp_path, with_plugin):
    """A rescore whose samples lie away from their results file records each task's frame spec digest
    from the samples, so it ranks beside the original run (it used to fail on frame_spec_digest None)."""
    elsewhere = tmp_path / "copied"
    elsewhere.mkdir()
    for p in sorted(v1_folder.glob("samples_*.jsonl")):  # no results file next to them
        shutil.copy(p, elsewhere)
    out = rescore(sorted(elsewhere.glob("samples_*.jsonl")), [str(TASKS_DIR)], v1_folder)
    digest = out.results["config"]["tasks"]["colors_qa"]["frame_spec_digest"]
    assert digest == _v1()["config"]["tasks"]["colors_qa"]["frame_spec_digest"]
    board = build_leaderboard(load_runs([v1_folder], with_samples=False))
    assert len(board.entries) == 2 and all(e.score == pytest.approx(0.7) for e in board.entries)
