"""`harness.evaluate(...)`: the run as a Python function, keyword arguments named as the CLI's flags, the
documented errors raised instead of exits; the command line's run goes through the same code."""

from __future__ import annotations

import os

import pytest

import harness
from conftest import PLUGIN_PKG
from harness.data.media import ALLOW_SYMLINKS_ENV
from harness.errors import ConfigError, UnknownNameError

COLORS_TASKS = PLUGIN_PKG / "harness_colors" / "tasks"


def test_evaluate_returns_the_results_of_a_run(tmp_path, colors_root):
    results = harness.evaluate(
        tasks=["colors_qa"], model="oracle", data=colors_root, include_path=[COLORS_TASKS],
        cache_dir=tmp_path / "cache", limit=4, no_progress=True,
    )  # fmt: skip
    res = results["task_results"]["colors_qa"]
    assert res["n_samples"] == 4 and res["metrics"]["accuracy"]["value"] == 1.0
    assert results["complete"] is True and not list(tmp_path.glob("*/results_*.json"))  # no output_path: no files


def test_evaluate_takes_the_cli_forms_too_and_writes_where_output_path_says(tmp_path, colors_root):
    results = harness.evaluate(
        "colors_qa,colors_qa_color", "random", "", data=str(colors_root), include_path=str(COLORS_TASKS),
        cache_dir=tmp_path / "cache", output_path=tmp_path / "out", log_samples=True, gen_kwargs="temperature=0",
        frames="uniform:2,max_side=32", no_progress=True,
    )  # fmt: skip
    assert set(results["task_results"]) == {"colors_qa", "colors_qa_color"}
    assert results["config"]["gen_kwargs"] == {"temperature": 0}
    assert len(list((tmp_path / "out" / "random").glob("samples_*.jsonl"))) == 2


def test_evaluate_raises_the_documented_errors_instead_of_exiting(tmp_path, colors_root):
    with pytest.raises(UnknownNameError, match="colors_qq"):
        harness.evaluate(tasks=["colors_qq"], model="oracle", include_path=[COLORS_TASKS], data=colors_root)
    with pytest.raises(ConfigError, match="--data_revision"):
        harness.evaluate(tasks="colors_qa", model="oracle", data=colors_root, data_revision="main")
    with pytest.raises(ConfigError, match="--batch_size"):
        harness.evaluate(tasks="colors_qa", model="oracle", data=colors_root, batch_size=0)


def test_the_cli_writes_no_environment_variable_for_its_flags(tmp_path, colors_root, monkeypatch):
    """Before: --allow_external_symlinks was passed on by writing os.environ, which outlived the run."""
    from harness.cli.main import main

    monkeypatch.delenv(ALLOW_SYMLINKS_ENV, raising=False)
    argv = ["--tasks", "colors_qa", "--model", "oracle", "--data", str(colors_root), "--limit", "2",
            "--include_path", str(COLORS_TASKS), "--cache_dir", str(tmp_path / "c"), "--allow_external_symlinks"]  # fmt: skip
    assert main(argv) == 0
    assert ALLOW_SYMLINKS_ENV not in os.environ
