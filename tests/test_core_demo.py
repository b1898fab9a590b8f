"""The embedded default: `python -m harness demo` builds tiny datasets offline and runs the baselines."""

from __future__ import annotations

import json

from golden_outputs import check_against_golden, output_digests

from conftest import harness_env, run_harness


def test_demo_builds_runs_baselines_and_summarises(tmp_path):
    out = tmp_path / "demo"
    r = run_harness(["demo", "--out", str(out)], harness_env(None), timeout=600)
    assert r.returncode == 0, r.stderr
    summary = (out / "summary.md").read_text()
    oracle_rows = [line for line in summary.splitlines() if "| oracle |" in line]
    assert oracle_rows and all("| 1.000 |" in line for line in oracle_rows), summary
    assert "| cyclist_l1 | random |" in summary and "| cyclist_l1 | prior |" in summary
    results = sorted((out / "results").rglob("results_*.json"))
    assert {json.loads(p.read_text())["model"]["name"] for p in results} == {"oracle", "random", "prior"}
    from datasets import load_dataset  # what lm-eval's EvaluationTracker reads results files with (Arrow)

    for p in results:  # every benchmark's results file loads: no list mixes types anywhere in it
        assert load_dataset("json", data_files=str(p), split="train", cache_dir=str(tmp_path / "ds"))["results"]
    # the same inputs give the same values in every results and samples file as the stored run did
    # (timestamps, git hash, versions and paths aside): refactors must not change what users get
    problems = check_against_golden("demo_outputs", output_digests(out))
    assert not problems, "demo outputs changed (HARNESS_UPDATE_GOLDEN=1 if meant):\n" + "\n".join(problems)
