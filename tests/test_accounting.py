"""Every row accounted for in results, and exit codes that cannot be misread (issue 16, points 2 and 3)."""

from __future__ import annotations

import json
import shutil

import pytest
from test_reliability_run import _break_videos

from conftest import harness_env, run_harness
from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.results.writer import validate_results


@pytest.fixture
def broken_root(tmp_path, colors_root):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    _break_videos(root / "colors" / "videos")
    return root


def _cli(tmp_path, plugin_site, root, *extra, model="oracle", tasks="colors_qa"):
    args = ["--tasks", tasks, "--model", model, "--data", str(root), "--output_path", str(tmp_path / "out")]
    args += ["--cache_dir", str(tmp_path / "cache"), "--no_progress", *extra]
    r = run_harness(args, harness_env(plugin_site))
    files = sorted((tmp_path / "out").rglob("results_*.json"))
    return r, (json.loads(files[-1].read_text()) if files else None)


def test_results_account_for_every_row_by_kind_and_reason(broken_root, tmp_path, with_plugin):
    cfg = RunConfig(
        tasks=["colors_all"], model="oracle", data=broken_root, cache_dir=tmp_path / "c", progress=False
    )
    results = run(cfg, load_plugins()).results
    validate_results(results)
    res = results["task_results"]["colors_qa"]
    assert res["n_rows"] == 24 and res["n_scored"] == 14 and res["n_errors"] == 10
    assert res["coverage"] == pytest.approx(14 / 24)
    by_reason = res["errors_by_reason"]["media"]
    assert sum(by_reason.values()) == 10 and {"truncated", "empty", "unsupported_codec"} <= set(by_reason)
    assert res["error_examples"] and res["error_examples"][0]["kind"] == "media"
    group = results["group_results"]["colors_all"]
    members = [results["task_results"][t] for t in group["tasks"]]
    assert group["n_rows"] == sum(m["n_rows"] for m in members)
    assert group["n_errors"] == sum(m["n_errors"] for m in members)
    assert group["coverage"] == pytest.approx(group["n_scored"] / group["n_rows"])
    assert results["complete"] is False and "colors_qa" in results["incomplete_reasons"][0]


def test_errors_exit_5_with_the_file_written_and_max_error_rate_allows_them(
    broken_root, tmp_path, plugin_site
):
    r, results = _cli(tmp_path, plugin_site, broken_root)
    assert r.returncode == 5, r.stderr
    assert results["complete"] is False
    assert "10 of 24 samples are errors" in r.stderr and "first 5 of 10 errors" in r.stderr
    assert "media/" in r.stderr
    # the summary table shows coverage and marks a headline over fewer rows than the split
    assert "| coverage |" in r.stdout and "58% (14/24)" in r.stdout and "1.0000*" in r.stdout
    r, results = _cli(tmp_path, plugin_site, broken_root, "--max_error_rate", "0.5")
    assert r.returncode == 0, r.stderr
    assert results["complete"] is True and results["max_error_rate"] == 0.5
    r, _ = _cli(tmp_path, plugin_site, broken_root, "--max_error_rate", "2")
    assert r.returncode == 2 and "--max_error_rate" in r.stderr


def test_server_down_exits_5_with_the_reason(colors_root, tmp_path, plugin_site):
    r, results = _cli(tmp_path, plugin_site, colors_root, "--model_args", "down=1", model="counting")
    assert r.returncode == 5, (r.returncode, r.stderr)
    assert "scored nothing" in r.stderr and "connection refused" in r.stderr
    assert results["task_results"]["colors_qa"]["errors"] == {"generation": 24}
    assert results["task_results"]["colors_qa"]["errors_by_reason"] == {"generation": {"ConnectionError": 24}}


def test_compare_and_leaderboard_refuse_incomplete_runs_unless_allowed(
    broken_root, colors_root, tmp_path, plugin_site
):
    r, _ = _cli(tmp_path / "good", plugin_site, colors_root)
    assert r.returncode == 0, r.stderr
    r, _ = _cli(tmp_path / "bad", plugin_site, broken_root)
    assert r.returncode == 5
    good = next((tmp_path / "good" / "out").rglob("results_*.json"))
    bad = next((tmp_path / "bad" / "out").rglob("results_*.json"))
    env = harness_env(plugin_site)
    r = run_harness(["compare", str(good), str(bad)], env)
    assert (
        r.returncode == 2
        and "incomplete" in r.stderr
        and str(bad) in r.stderr
        and "--allow_incomplete" in r.stderr
    )
    r = run_harness(["compare", str(good), str(bad), "--allow_incomplete"], env)
    assert r.returncode in (0, 4), r.stderr
    board = tmp_path / "board.md"
    r = run_harness(["leaderboard", str(good), str(bad), "--out", str(board)], env)
    assert r.returncode == 2 and "incomplete" in r.stderr
    r = run_harness(["leaderboard", str(good), str(bad), "--out", str(board), "--allow_incomplete"], env)
    assert r.returncode == 0, r.stderr


def _task_folder(tmp_path):
    from test_reliability_run import TASKS_DIR

    folder = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, folder)
    return folder


def test_a_metric_no_score_hook_returns_is_a_config_error_up_front(tmp_path, colors_root):
    folder = _task_folder(tmp_path)
    yaml_file = folder / "colors.yaml"
    yaml_file.write_text(yaml_file.read_text().replace("  - name: accuracy\n", "  - name: acc\n"))
    r, results = _cli(tmp_path, None, colors_root, "--include_path", str(folder))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "'acc'" in r.stderr and "accuracy" in r.stderr and "colors.yaml" in r.stderr
    assert results is None and "Traceback" not in r.stderr


def test_a_task_that_loads_no_row_is_a_config_error(tmp_path, colors_root, plugin_site):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    (root / "colors" / "test.jsonl").write_text("\n")
    r, _ = _cli(tmp_path, plugin_site, root)
    assert r.returncode == 2 and "colors_qa" in r.stderr and "loaded 0 rows" in r.stderr, r.stderr


def test_one_bad_yaml_is_named_and_hides_no_other_task_of_the_folder(tmp_path, colors_root):
    folder = _task_folder(tmp_path)
    (folder / "broken.yaml").write_text("task: colors_broken\nmetrics: [\n")
    (folder / "badfield.yaml").write_text("task: colors_badfield\nno_such_field: 1\n")
    env = harness_env(None)
    r = run_harness(["ls", "tasks", "--include_path", str(folder)], env)
    assert r.returncode == 0 and "colors_qa" in r.stdout and "colors_badfield" in r.stdout
    assert "broken.yaml" in r.stdout
    r = run_harness(["ls", "plugins", "--include_path", str(folder)], env)
    assert r.returncode == 2 and "broken.yaml" in r.stdout and "badfield.yaml" in r.stdout, r.stdout
    assert "no_such_field" in r.stdout
    r, _ = _cli(tmp_path, None, colors_root, "--include_path", str(folder), model="oracle")
    assert r.returncode == 0 and "broken.yaml" in r.stderr, r.stderr
    r, _ = _cli(tmp_path, None, colors_root, "--include_path", str(folder), tasks="colors_broken")
    assert r.returncode == 2 and "unknown task 'colors_broken'" in r.stderr and "broken.yaml" in r.stderr


def test_an_aggregate_hook_that_raises_still_writes_results_marked_incomplete(tmp_path, colors_root):
    folder = _task_folder(tmp_path)
    (folder / "hooks.py").write_text(
        (folder / "hooks.py").read_text()
        + "\n\ndef broken_tables(records, task):\n    raise KeyError('tier')\n"
    )
    yaml_file = folder / "colors.yaml"
    yaml_file.write_text(
        yaml_file.read_text().replace(
            "  parse: hooks.py:parse\n", "  parse: hooks.py:parse\n  aggregate: hooks.py:broken_tables\n", 1
        )
    )
    r, results = _cli(tmp_path, None, colors_root, "--include_path", str(folder))
    assert r.returncode == 5, r.stderr
    res = results["task_results"]["colors_qa"]
    assert "KeyError" in res["tables_error"] and res["metrics"]["accuracy"]["value"] == 1.0
    assert "paper tables are missing" in r.stderr


def test_dropped_rows_are_shown_and_recorded(tmp_path, colors_root, plugin_site):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    split = root / "colors" / "test.jsonl"
    split.write_text(split.read_text() + "{not json\n[1, 2]\n")
    r, results = _cli(tmp_path, plugin_site, root)
    assert r.returncode == 0, r.stderr
    assert "2 row(s) dropped by the loader (invalid_json: 1, not_a_mapping: 1)" in r.stderr
    assert "test.jsonl line 25" in r.stderr
    res = results["task_results"]["colors_qa"]
    assert res["n_rows"] == 26 and res["dropped"] == {"invalid_json": 1, "not_a_mapping": 1}
    assert res["coverage"] == pytest.approx(24 / 26) and "| 2 |" in r.stdout
