"""The embedded default: `python -m harness demo` builds tiny datasets offline and runs the baselines, in an
environment like a core install (`make demo`): every optional extra's packages hidden, and a `java` on the
PATH (the case where the caption metrics once reached for pycocoevalcap, which only the `test` extra has)."""

from __future__ import annotations

import json

from golden_outputs import check_against_golden, output_digests

from conftest import core_install_env, extras_modules, run_harness


def _rows(summary: str) -> list[list[str]]:
    lines = [line for line in summary.splitlines() if line.startswith("| ") and "---" not in line]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[1:]]


def test_demo_fills_every_row_in_a_core_install(tmp_path):
    assert {"torch", "transformers", "pycocoevalcap", "openai"} <= set(extras_modules())
    out = tmp_path / "demo"
    r = run_harness(["demo", "--out", str(out)], core_install_env(tmp_path), timeout=900)
    assert r.returncode == 0, r.stderr
    summary = (out / "summary.md").read_text()
    rows = _rows(summary)
    assert "Problems" not in summary
    for _, task, model, _, value, _, _ in rows:
        assert value, (task, model)
        if model == "oracle":
            assert value == "1.000", (task, value)  # every pipeline scores 100 %, the RVTBench text tasks too
    pairs = {(row[1], row[2]) for row in rows}
    tasks = {row[1] for row in rows}
    assert len(tasks) >= 8 and not any(row[4].startswith("not run") for row in rows)
    # no row the demo knows it cannot run: `prior` is refused on the test-only benchmarks, said once
    prior = {row[1] for row in rows if row[2] == "prior"}
    assert prior == {t for t in tasks if t.startswith("cyclist")}
    assert len(pairs) == len(rows) == 2 * len(tasks) + len(prior), "one row per (task, model) that runs"
    rvt = sorted(t for t in tasks if t.startswith("rvtbench"))
    skipped = summary.split("Skipped (the harness refuses these baselines there, before any model call):\n")[1]
    assert skipped.count("`prior` on ") == 2 and "the task has no training split" in skipped
    assert all(t in skipped for t in tasks - prior) and "tempcloze_mixed" in skipped and rvt[0] in skipped
    assert r.stderr.count("skipped `prior` on ") == 2 and r.stderr.count("not running") == 0
    # each builder's statistics stay out of the demo (the RVTBench demo builds a CycliST source too)
    assert "questions for" not in r.stdout + r.stderr
    results = sorted((out / "results").rglob("results_*.json"))
    assert {json.loads(p.read_text())["model"]["name"] for p in results} == {"oracle", "random", "prior"}
    assert all(json.loads(p.read_text())["complete"] for p in results)
    vqa = [json.loads(p.read_text())["task_results"].get("rvtbench_vqa") for p in results]
    assert {v["tables"]["tokenizer"] for v in vqa if v} == {"harness_metrics.ptb_tokenizer (Python port of the PTBTokenizer)"}

    from datasets import load_dataset  # what lm-eval's EvaluationTracker reads results files with (Arrow)

    for p in results:  # every benchmark's results file loads: no list mixes types anywhere in it
        assert load_dataset("json", data_files=str(p), split="train", cache_dir=str(tmp_path / "ds"))["results"]
    # the same inputs give the same values in every results and samples file as the stored run did
    # (timestamps, git hash, versions and paths aside): refactors must not change what users get
    problems = check_against_golden("demo_outputs", output_digests(out))
    assert not problems, "demo outputs changed (HARNESS_UPDATE_GOLDEN=1 if meant):\n" + "\n".join(problems)


def test_an_incomplete_demo_run_fails_the_demo_and_says_why(tmp_path):
    # Java forced but pycocoevalcap missing: the RVTBench text tasks cannot be scored, every sample an error
    env = core_install_env(tmp_path, HARNESS_PTB_TOKENIZER="java")
    out = tmp_path / "demo"
    r = run_harness(["demo", "--out", str(out), "--models", "oracle", "--limit", "3"], env, timeout=900)
    assert r.returncode == 5, r.stderr
    summary = (out / "summary.md").read_text()
    rows = {row[1]: row[4] for row in _rows(summary)}
    assert rows["rvtbench_vqa"] == "no value: no sample was scored (3 errors)"
    assert rows["cyclist_l1"] == "1.000"
    assert "Problems (the demo exits 5):" in summary
    assert "task 'rvtbench_vqa' scored nothing: all 3 samples are errors" in r.stderr
