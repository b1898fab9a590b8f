"""`--rescore`: parsed answers, scores and every metric recomputed from samples files with the current task
code, no model; the results file beside the samples (any schema version) is carried over (docs/results.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from harness import __version__
from harness.data.run_context import RunContext
from harness.data.task import Task
from harness.engine.evaluator import rescore_record
from harness.engine.runner import RunOutcome, build_task, lmms_output_path
from harness.engine.seeding import Seeds, rescore_in_order
from harness.plugins.loading import PluginState, load_plugins
from harness.results.lm_eval_keys import add_lm_eval_keys, lm_eval_config, stderrs_of, task_hash
from harness.results.upgrade import upgrade_results
from harness.results.writer import (
    RESULTS_SCHEMA_VERSION,
    atomic_write_text,
    dumps_results,
    read_samples,
    timestamp,
)
from harness.scoring.completeness import mark_completeness
from harness.scoring.task_results import N_BOOTSTRAP, aggregate_task


def _task_config_from_samples(task: Task, records: list[dict]) -> dict[str, Any]:
    """config.tasks[task] for a rescore without its results file: the task's own config and frame spec,
    and the frame spec digest the samples logged (what compare and leaderboard match runs on)."""
    digests = {r.get("frame_spec") for r in records if r.get("frame_spec")}
    spec = task.config.frames
    return {
        "version": task.config.version,
        "plugin": task.plugin,
        "plugin_version": task.plugin_version,
        "frame_spec": spec.canonical(),
        "effective_frame_spec": spec.canonical(),
        "frame_spec_digest": digests.pop() if len(digests) == 1 else spec.digest(),
        "frames_overridden": False,
        "config": task.config.model_dump(mode="json"),
    }


def _rescore_base(original: Optional[dict], tasks: list[Task], per_task: dict[str, list[dict]], seed: int) -> dict:
    """What a rescore keeps: the original results file (current schema), else what the samples tell."""
    if original:
        results = {k: v for k, v in original.items() if k != "upgraded_from_schema"}
    else:
        results = {
            "schema_version": RESULTS_SCHEMA_VERSION,
            "harness_version": __version__,
            "model": {},
            "config": {"seed": seed, "judge": None, **lm_eval_config("unknown", {}, None, N_BOOTSTRAP)},
            "group_results": {},
        }
    results["config"] = dict(results.get("config") or {})
    results["config"]["tasks"] = {
        **{t.name: _task_config_from_samples(t, per_task[t.name]) for t in tasks},
        **(results["config"].get("tasks") or {}),
    }
    results["task_results"] = {}
    return results


def _rescore_seeds(recorded: dict[str, Any], seed: int) -> Seeds:
    """The seeds a rescore sets: those the original run recorded; lmms-eval's defaults (Python's `random`:
    the run's --seed) for a generator it recorded none for (a file written before the harness seeded them)."""

    def pick(key: str, default: int) -> int:
        value = recorded.get(key)
        return default if value is None else value

    return Seeds(
        random_seed=pick("random_seed", seed),
        numpy_seed=pick("numpy_seed", Seeds.numpy_seed),
        torch_seed=pick("torch_seed", Seeds.torch_seed),
    )


def rescore(
    samples_files: list[Path],
    include_path: list[str],
    output_path: Optional[Path],
    seed: int = 0,
    state: Optional[PluginState] = None,
) -> RunOutcome:
    """Recompute parsed answers, scores and metrics from samples files, with no model."""
    state = state or load_plugins(include_path)
    per_task: dict[str, list[dict]] = {}
    original: Optional[dict] = None
    for path in samples_files:
        path = Path(path)
        m = re.match(r"samples_.+_(\d{4}-\d\d-\d\dT[\d.-]+)\.jsonl$", path.name)
        if m and original is None:
            candidate = path.parent / f"results_{m.group(1)}.json"
            if candidate.exists():
                original = upgrade_results(json.loads(candidate.read_text(encoding="utf-8")), str(candidate))
        for rec in read_samples(path, required=("task", "doc", "target")):
            per_task.setdefault(rec["task"], []).append(rec)
    tasks = [build_task(state, name) for name in per_task]
    results = _rescore_base(original, tasks, per_task, seed)
    seed = results["config"].get("seed", seed)
    seeds = _rescore_seeds(results["config"], seed)
    results["config"].update(seeds.to_config())  # the seeds this rescore set (a file of schema 1 may lack them)
    tasks = [t.with_run(RunContext(output_dir=lmms_output_path(output_path, None))) for t in tasks]
    rescore_in_order(tasks, per_task, rescore_record, seeds)
    for t in tasks:
        before = (original or {}).get("task_results", {}).get(t.name) or {}
        dropped = [
            {"reason": r, "detail": ""} for r, n in (before.get("dropped") or {}).items() for _ in range(n)
        ]
        n_rows = before["n_rows"] - before.get("n_dropped", 0) if "n_rows" in before else None
        res = aggregate_task(t, per_task[t.name], seed, n_rows, dropped)
        res["dropped_examples"] = before.get("dropped_examples", [])
        results["task_results"][t.name] = res
    mark_completeness(results, results.get("max_error_rate", 0.0))
    results["created"] = timestamp()
    results["rescored_from"] = [Path(p).name for p in samples_files]
    original_n = {k: v.get("original", 0) for k, v in (results.get("n-samples") or {}).items()}
    hashes = {name: task_hash(recs) for name, recs in per_task.items()}
    add_lm_eval_keys(results, stderrs_of(tasks, per_task), original_n, None, hashes)
    results["samples_files"] = {}
    out = RunOutcome(results=results, records=per_task)
    if output_path is not None:
        out.results_path = Path(output_path) / f"results_rescored_{results['created']}.json"
        atomic_write_text(out.results_path, dumps_results(results))
    return out
