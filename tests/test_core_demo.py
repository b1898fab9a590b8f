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
    assert len(pairs) == len(rows) == 3 * len(tasks) >= 24, "one row per (task, model), none missing"
    prior = {row[1]: row[4] for row in rows if row[2] == "prior"}
    assert prior["cyclist_l1"][0].isdigit()
    assert all(prior[t].startswith("not run: ") and "no training split" in prior[t] for t in prior if "rvtbench" in t)
    assert all(prior[t].startswith("not run: ") and "'train'" in prior[t] for t in prior if "tempcloze" in t)
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
