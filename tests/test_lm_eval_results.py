"""Results files in lm-eval's results schema: `results`/`groups` hold only lm-eval's per-metric keys (so
`make_table` prints one row per metric), lm-eval's top-level and `config` keys with lm-eval's types, the
harness's own entries under `task_results`/`group_results`; `datasets`' JSON reader (what lm-eval's
EvaluationTracker uses) loads the file. lm-eval's own `make_table` and tracker readers are run where lm-eval
is importable (here, or by the interpreter in HARNESS_LM_EVAL_PYTHON: `pip install lm-eval`)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from conftest import PLUGIN_PKG
from harness.config.run import RunConfig
from harness.engine.rescoring import rescore
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.results.lm_eval_keys import mean_stderr, model_args_string
from harness.results.writer import read_samples, validate_results

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"
#: lm-eval's `config` keys and their types (lm_eval/result_schema.py `_EvalConfig`, lm_eval/evaluator.py)
CONFIG_TYPES = {
    "model": str,
    "model_args": str,
    "batch_size": (int, str),
    "batch_sizes": list,
    "device": (str, type(None)),
    "use_cache": (str, type(None)),
    "limit": (int, float, type(None)),
    "bootstrap_iters": int,
    "gen_kwargs": (dict, str, type(None)),
    "random_seed": (int, type(None)),
    "numpy_seed": (int, type(None)),
    "torch_seed": (int, type(None)),
    "fewshot_seed": (int, type(None)),
}
TOP_TYPES = {
    "git_hash": (str, type(None)),
    "date": float,
    "model_source": str,
    "model_name": str,
    "model_name_sanitized": str,
    "task_hashes": dict,
    "total_evaluation_time_seconds": str,
    "transformers_version": str,
    "versions": dict,
    "n-shot": dict,
    "higher_is_better": dict,
    "n-samples": dict,
    "configs": dict,
    "group_subtasks": dict,
}


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


def test_results_holds_only_lm_eval_keys_per_metric(outcome):
    res = json.loads(outcome.results_path.read_text())
    validate_results(res)
    task = res["results"]["colors_qa"]
    mine = res["task_results"]["colors_qa"]
    assert set(task) == {"name", "alias", "sample_len"} | {
        f"{m}{suffix},none" for m in mine["metrics"] for suffix in ("", "_stderr")
    }
    assert task["alias"] == task["name"] == "colors_qa" and task["sample_len"] == mine["n_samples"] == 10
    assert task["accuracy,none"] == mine["metrics"]["accuracy"]["value"]
    values = [r["scores"]["accuracy"] for r in read_samples(outcome.samples_paths["colors_qa"])]
    assert 0 < mean_stderr(values) == pytest.approx(task["accuracy_stderr,none"], abs=1e-9)
    group = res["groups"]["colors_all"]
    assert set(group) == {"name", "alias", "sample_len", "accuracy,none", "accuracy_stderr,none"}
    assert res["group_results"]["colors_all"]["tasks"] == res["group_subtasks"]["colors_all"]


def test_top_level_and_config_keys_have_lm_evals_types(outcome):
    res = json.loads(outcome.results_path.read_text())
    for key, types in TOP_TYPES.items():
        assert isinstance(res[key], types), (key, res[key])
    for key, types in CONFIG_TYPES.items():
        assert isinstance(res["config"][key], types), (key, res["config"][key])
    assert res["git_hash"] == res["config"]["git_hash"]
    assert res["config"]["model"] == res["model_source"] == "counting"
    assert res["config"]["model_args"] == "wrong_every=3" and res["model"]["identity"]["args"]["wrong_every"] == 3
    assert res["model_name"] == "counting" and res["model_name_sanitized"] == "counting"
    assert res["config"]["bootstrap_iters"] == 1000 and res["config"]["use_cache"].endswith("cache")
    # the seeds the run set (harness.engine.seeding), under lm-eval's names; no few-shot sampler: null
    seeds = tuple(res["config"][k] for k in ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed"))
    assert seeds == (res["config"]["seed"], 1234, 1234, None)
    assert set(res["task_hashes"]) == {"colors_qa", "colors_qa_color"}
    assert all(len(h) == 64 for h in res["task_hashes"].values())
    assert res["versions"]["colors_qa"] == 1 and res["n-shot"]["colors_qa"] == 0
    assert res["higher_is_better"]["colors_qa"] == {"accuracy": True}
    assert res["n-samples"]["colors_qa"] == {"original": 24, "effective": 10}
    assert res["configs"]["colors_qa"]["task"] == "colors_qa"
    assert res["end_time"] >= res["start_time"] == res["date"]
    assert float(res["total_evaluation_time_seconds"]) >= 0


def test_model_args_string_and_model_name_follow_lm_eval():
    assert model_args_string({"pretrained": "org/m", "dtype": "bfloat16", "n": 2, "flag": True}) == (
        "pretrained=org/m,dtype=bfloat16,n=2,flag=true"
    )
    from harness.results.lm_eval_keys import model_name_of, sanitize_model_name

    assert model_name_of({"base_url": "http://x", "model": "Qwen/Qwen2.5-VL-7B"}, "openai") == "Qwen/Qwen2.5-VL-7B"
    assert model_name_of({}, "random") == "random"
    assert sanitize_model_name("Qwen/Qwen2.5-VL-7B") == "Qwen__Qwen2.5-VL-7B"


def test_task_hashes_are_deterministic_and_change_with_the_prompts(outcome, tmp_path, colors_root):
    res = json.loads(outcome.results_path.read_text())
    again = rescore(list(outcome.samples_paths.values()), [str(TASKS_DIR)], tmp_path / "re").results
    assert again["task_hashes"] == res["task_hashes"]
    from harness.results.lm_eval_keys import task_hash

    records = read_samples(outcome.samples_paths["colors_qa"])
    assert task_hash(records) == res["task_hashes"]["colors_qa"]
    records[0]["prompt"] += " "
    assert task_hash(records) != res["task_hashes"]["colors_qa"]


def test_rescore_keeps_the_lm_eval_keys(outcome, tmp_path):
    out = rescore([outcome.samples_paths["colors_qa"]], [str(TASKS_DIR)], tmp_path / "re")
    task = out.results["results"]["colors_qa"]
    assert task["accuracy,none"] == out.results["task_results"]["colors_qa"]["metrics"]["accuracy"]["value"]
    assert out.results["n-samples"]["colors_qa"]["original"] == 24
    assert out.results["config"]["model_args"] == "wrong_every=3"
    validate_results(json.loads(out.results_path.read_text()))


def test_datasets_json_reader_loads_the_file(outcome):
    """lm-eval's EvaluationTracker reads results files with `datasets.load_dataset("json", ...)` (Arrow):
    a list mixing strings and lists anywhere in the file would make it unreadable."""
    from datasets import load_dataset

    ds = load_dataset("json", data_files=str(outcome.results_path), split="train")
    assert ds["results"][0]["colors_qa"]["accuracy,none"] == pytest.approx(0.7)


LM_EVAL_READERS = r"""
import json, sys
from pathlib import Path
from lm_eval import utils
from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker

out, results_path = Path(sys.argv[1]), Path(sys.argv[2])
res = json.loads(results_path.read_text())
files = sorted(str(p.relative_to(out.parent)) for p in out.rglob("*.json*"))
report = {
    "table": utils.make_table(res),
    "groups": utils.make_table(res, "groups"),
    "results_files": utils.get_results_filenames(files),
    "sample_files": utils.get_sample_results_filenames(files),
    "latest": utils.get_latest_filename(utils.get_results_filenames(files)),
    "task_names": sorted({utils.get_file_task_name(Path(f).name) for f in utils.get_sample_results_filenames(files)}),
    "datetimes": sorted({utils.get_file_datetime(Path(f).name) for f in files}),
    "model_name": GeneralConfigTracker._get_model_name(res["config"]["model_args"]),
    "sanitized": utils.sanitize_model_name(res["model_name"]),
}
print(json.dumps(report))
"""


def _lm_eval_python() -> str:
    if importlib.util.find_spec("lm_eval") is not None:
        return sys.executable
    python = os.environ.get("HARNESS_LM_EVAL_PYTHON")
    if not python:
        pytest.skip("lm-eval is not installed (pip install lm-eval, or set HARNESS_LM_EVAL_PYTHON)")
    return python


def _table_rows(text: str) -> list[list[str]]:
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()]
    return [r for r in rows[2:] if len(r) == 9]  # Tasks|Version|Filter|n-shot|Metric|(arrow)|Value|±|Stderr


def test_lm_evals_own_readers_read_the_file(outcome, tmp_path):
    script = tmp_path / "readers.py"
    script.write_text(LM_EVAL_READERS)
    out_dir = outcome.results_path.parent.parent
    proc = subprocess.run(
        [_lm_eval_python(), str(script), str(out_dir), str(outcome.results_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    res = json.loads(outcome.results_path.read_text())
    rows = _table_rows(got["table"])
    expected = {(t, m) for t, e in res["task_results"].items() for m in e["metrics"]}
    expected |= {(g, m) for g, e in res["group_results"].items() for m in e["metrics"]}  # groups: in `results` too
    seen, task = set(), ""
    for row in rows:
        task = row[0].lstrip(" -") or task
        seen.add((task, row[4]))
        value = res["results"][task][f"{row[4]},none"]
        n_shot = "" if task in res["group_results"] else "0"  # lm-eval's n-shot lists tasks only
        assert float(row[6]) == pytest.approx(value, abs=1e-4) and row[1:4] == ["1", "none", n_shot]
    assert seen == expected and len(rows) == len(expected)  # one row per metric, nothing else
    assert [r[4] for r in _table_rows(got["groups"])] == ["accuracy"]
    name = outcome.results_path.parent.name
    assert got["results_files"] == [f"out/{name}/{outcome.results_path.name}"] == [got["latest"]]
    assert got["task_names"] == ["colors_qa", "colors_qa_color"] and len(got["sample_files"]) == 2
    assert {d.removesuffix(".json") for d in got["datetimes"]} == {res["created"]}
    assert got["model_name"] is None and res["model_name"] == "counting"  # no pretrained=: the model's name
    assert got["sanitized"] == res["model_name_sanitized"]
