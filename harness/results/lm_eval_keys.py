"""lm-eval's keys in the results file, beside the harness's own, so lm-eval's and lmms-eval's table and
leaderboard tooling (e.g. `lm_eval.utils.make_table`) read it (docs/results.md).

Added, leaving every existing key as it is:
- per task entry in `results` (and per group in `groups`): `alias` and flat `"<metric>,none"` values with
  `"<metric>_stderr,none"` (the standard error of a mean, `"N/A"` for other aggregations, as lm-eval writes);
- top level: `configs`, `versions`, `n-shot` (always 0), `higher_is_better`, `n-samples`
  (`{"original": rows in the split, "effective": rows evaluated}`), `group_subtasks`, and the wall times
  `date`, `start_time`, `end_time`, `total_evaluation_time_seconds` (lm-eval writes the last as a string).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from harness.scoring.task_results import metric_values

#: the wall-time keys: with `created`, the only keys of a results file that differ between identical runs
TIMING_KEYS = ("date", "start_time", "end_time", "total_evaluation_time_seconds")
FILTER = "none"  # the harness applies no lm-eval filters: every metric is under filter "none"


def mean_stderr(values: list[float]) -> Optional[float]:
    """lm-eval's stderr of a mean: the sample standard deviation (n - 1) over sqrt(n); None below 2 values."""
    n = len(values)
    if n < 2:
        return None
    mu = sum(values) / n
    return math.sqrt(sum((v - mu) ** 2 for v in values) / (n - 1)) / math.sqrt(n)


def _flat(entry: dict, name: str, stderrs: dict[str, Any]) -> None:
    entry["alias"] = name
    for metric, m in entry.get("metrics", {}).items():
        entry[f"{metric},{FILTER}"] = m.get("value")
        se = stderrs.get(metric)
        entry[f"{metric}_stderr,{FILTER}"] = "N/A" if se is None else se


def add_lm_eval_keys(
    results: dict[str, Any],
    stderrs: dict[str, dict[str, Any]],
    n_original: dict[str, int],
    timing: Optional[dict[str, float]] = None,
) -> dict[str, Any]:
    """Add lm-eval's keys to `results` in place (and return it); see the module docstring."""
    tasks = results.get("results", {})
    task_cfgs = (results.get("config") or {}).get("tasks", {})
    for name, entry in tasks.items():
        _flat(entry, name, stderrs.get(name, {}))
    for name, entry in results.get("groups", {}).items():
        _flat(entry, name, {})
    results["configs"] = {
        name: {"task": name, **(task_cfgs.get(name, {}).get("config") or {})} for name in tasks
    }
    results["versions"] = {name: entry.get("version") for name, entry in tasks.items()}
    results["versions"].update({g: e.get("version", 1) for g, e in results.get("groups", {}).items()})
    results["n-shot"] = {name: 0 for name in tasks}
    results["higher_is_better"] = {
        name: {m: v.get("higher_is_better", True) for m, v in entry.get("metrics", {}).items()}
        for name, entry in tasks.items()
    }
    results["n-samples"] = {
        name: {
            "original": int(n_original.get(name, entry.get("n_samples", 0))),
            "effective": entry["n_samples"],
        }
        for name, entry in tasks.items()
    }
    results["group_subtasks"] = {g: list(e.get("tasks", [])) for g, e in results.get("groups", {}).items()}
    if timing:
        results["date"] = timing["start_time"]
        results["start_time"] = timing["start_time"]
        results["end_time"] = timing["end_time"]
        results["total_evaluation_time_seconds"] = str(timing["end_time"] - timing["start_time"])
    return results


def stderrs_of(tasks: list, per_task: dict[str, list[dict]]) -> dict[str, dict[str, Optional[float]]]:
    """Per task and metric, lm-eval's stderr of the mean for `mean` metrics (None for other aggregations)."""
    out: dict[str, dict[str, Optional[float]]] = {}
    for task in tasks:
        cell = out.setdefault(task.name, {})
        for m in task.config.metrics:
            agg = task.aggregator(m)
            if agg.corpus or agg.name != "mean":
                cell[m.name] = None
                continue
            values, _ = metric_values(per_task.get(task.name, []), m.name, None)
            se = mean_stderr(values)
            cell[m.name] = None if se is None else round(se, 10)
    return out
