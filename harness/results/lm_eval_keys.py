"""lm-eval's results schema in the results file, so lm-eval's and lmms-eval's table and leaderboard tooling
(`lm_eval.utils.make_table`, its EvaluationTracker and loggers) reads it as one of its own (docs/results.md).

What lm-eval owns in the file, with lm-eval's types (lm_eval/result_schema.py, lm_eval/evaluator.py):
- `results.<task or group>` and `groups.<group>`: `name`, `alias`, `sample_len` and, per metric, `"<metric>,none"`
  (`"<metric>,<pipeline>"` under a task's filter_list) with `"<metric>_stderr,none"` (the standard error of a mean; `"N/A"` for other aggregations), nothing
  else, so `make_table` prints exactly one row per metric;
- `configs`, `versions`, `n-shot` (always 0), `higher_is_better`, `n-samples`, `group_subtasks`;
- `config.model`, `config.model_args` (the `k=v,...` string), `batch_size`, `batch_sizes`, `device`,
  `use_cache`, `limit`, `bootstrap_iters`, `gen_kwargs` and the seeds (`random_seed`, `numpy_seed`,
  `torch_seed`, `fewshot_seed`: the seeds the run set, null for a generator it left alone);
- top level: `git_hash`, `date`, `start_time`, `end_time`, `total_evaluation_time_seconds` (a string),
  `model_source`, `model_name`, `model_name_sanitized`, `task_hashes`, `transformers_version` and
  the chat keys lm-eval's tracker writes (`system_instruction`, `chat_template`, ... : null here).

The harness's own per-task entries (accounting, CIs, breakdowns, paper tables) are `task_results` and
`group_results`; lm-eval's sections are derived from them by `add_lm_eval_keys`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, Optional

from harness.config.filter_list import NO_FILTER, split_metric_key
from harness.scoring.task_results import metric_values

#: the wall-time keys: with `created`, the only keys of a results file that differ between identical runs
TIMING_KEYS = ("date", "start_time", "end_time", "total_evaluation_time_seconds")
FILTER = NO_FILTER  # a metric of a task without a filter_list is under lm-eval's filter "none"
#: lm-eval's seed keys in `config` (lm_eval/evaluator.py): Python's random, NumPy, torch, the few-shot sampler
SEED_KEYS = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
#: the keys of lm-eval's GeneralConfigTracker that a run without chat templates or system prompts leaves null
_CHAT_KEYS = ("system_instruction", "system_instruction_sha", "chat_template", "chat_template_sha")
#: model_args keys lm-eval takes the model name from, in its order (GeneralConfigTracker._get_model_name)
_NAME_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


def mean_stderr(values: list[float]) -> Optional[float]:
    """lm-eval's stderr of a mean: the sample standard deviation (n - 1) over sqrt(n); None below 2 values."""
    n = len(values)
    if n < 2:
        return None
    mu = sum(values) / n
    return math.sqrt(sum((v - mu) ** 2 for v in values) / (n - 1)) / math.sqrt(n)


def flat_entry(name: str, entry: Mapping[str, Any], stderrs: Mapping[str, Any]) -> dict[str, Any]:
    """lm-eval's entry of one task or group: name, alias, sample_len and one value and stderr per metric."""
    out: dict[str, Any] = {"name": name, "alias": name, "sample_len": int(entry.get("n_samples") or 0)}
    for key, m in (entry.get("metrics") or {}).items():
        if m.get("n") == 0 and m.get("value") is None and entry.get("n_scored"):
            continue  # not applicable to any scored document (none returned it): lm-eval lists no such metric
        metric, pipeline = split_metric_key(key)  # `metric,pipeline` under a filter_list, else filter "none"
        out[f"{metric},{pipeline}"] = m.get("value")
        se = stderrs.get(key)
        out[f"{metric}_stderr,{pipeline}"] = "N/A" if se is None else se
    return out


def group_stderrs(group: Mapping[str, Any], tasks: Mapping[str, Any], stderrs: Mapping[str, Any]) -> dict[str, Any]:
    """A group's stderr per metric, as lm-eval pools its members' (`pooled_sample_stderr`: sizes the members'
    n); None ("N/A") when a member with the metric has none."""
    out: dict[str, Any] = {}
    for key in group.get("metrics") or {}:
        pairs = [
            (stderrs.get(t, {}).get(key), int(m.get("n") or 0))
            for t in group.get("tasks", [])
            if (m := (tasks.get(t, {}).get("metrics") or {}).get(key)) and m.get("value") is not None
        ]
        total = sum(n for _, n in pairs)
        if not pairs or any(se is None for se, _ in pairs) or total <= len(pairs):
            out[key] = None
            continue
        pooled_var = sum((n - 1) * se**2 * n for se, n in pairs) / (total - len(pairs))
        out[key] = round(math.sqrt(pooled_var / total), 10)
    return out


def model_args_string(args: Mapping[str, Any]) -> str:
    """The `k=v,...` form lm-eval records (and `--model_args` takes): strings as they are, other values JSON."""
    return ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in args.items())


def model_name_of(args: Mapping[str, Any], fallback: str) -> str:
    """The name lm-eval's tracker gives a model: the first of pretrained/model/path/... in its args."""
    for key in _NAME_KEYS:
        if key in args and args[key] not in (None, ""):
            return str(args[key])
    return fallback


def sanitize_model_name(name: str) -> str:
    """lm-eval's `sanitize_model_name`: the model name as a folder name ('org/model' -> 'org__model')."""
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()  # a row may hold lone surrogates


def _canonical(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def task_hash(records: Iterable[Mapping[str, Any]]) -> str:
    """lm-eval's task hash: sha256 over each sample's doc, prompt and target hashes, in dataset order (doc
    and target as canonical JSON, so a run and its --rescore from the samples file hash alike)."""
    parts = [
        _sha256(_canonical(r.get("doc"))) + _sha256(str(r.get("prompt", ""))) + _sha256(_canonical(r.get("target")))
        for r in records
    ]
    return _sha256("".join(parts))


def transformers_version() -> str:
    """The installed transformers version, or lm-eval's "N/A" without it."""
    try:
        return metadata.version("transformers")
    except metadata.PackageNotFoundError:
        return "N/A"


def lm_eval_config(
    model: str,
    model_args: Mapping[str, Any],
    cache_dir: Optional[Path],
    bootstrap_iters: int,
    seeds: Optional[Mapping[str, Optional[int]]] = None,
) -> dict[str, Any]:
    """lm-eval's `config` keys the harness config lacks, with lm-eval's types (`batch_size`, `limit` and
    `gen_kwargs` are the harness's own already). `seeds`: what the run seeded (SEED_KEYS; missing: None)."""
    seeds = seeds or {}
    device = model_args.get("device")
    return {
        "model": model,
        "model_args": model_args_string(model_args),
        "batch_sizes": [],
        "device": None if device is None else str(device),
        "use_cache": None if cache_dir is None else str(cache_dir),
        "bootstrap_iters": int(bootstrap_iters),
        **{k: seeds.get(k) for k in SEED_KEYS},
    }


def _identity_keys(results: dict[str, Any]) -> dict[str, Any]:
    """lm-eval's top-level model and provenance keys, from the harness's `model` and `config`."""
    model = results.get("model") or {}
    config = results.get("config") or {}
    args = (model.get("identity") or {}).get("args") or {}
    name = model_name_of(args, str(model.get("name") or config.get("model") or "model"))
    return {
        "git_hash": config.get("git_hash"),
        "model_source": config.get("model") or model.get("name"),
        "model_name": name,
        "model_name_sanitized": sanitize_model_name(name),
        "fewshot_as_multiturn": False,
        **{k: None for k in _CHAT_KEYS},
    }


def add_lm_eval_keys(
    results: dict[str, Any],
    stderrs: dict[str, dict[str, Any]],
    n_original: dict[str, int],
    timing: Optional[dict[str, float]] = None,
    hashes: Optional[dict[str, str]] = None,
) -> dict[str, Any]:
    """Write lm-eval's sections into `results` (in place; returned) from its `task_results` and
    `group_results`; see the module docstring. `hashes`: task -> task_hash (kept when None)."""
    tasks = results.get("task_results") or {}
    groups = results.get("group_results") or {}
    task_cfgs = (results.get("config") or {}).get("tasks", {})
    results["groups"] = {name: flat_entry(name, e, group_stderrs(e, tasks, stderrs)) for name, e in groups.items()}
    results["results"] = {name: flat_entry(name, e, stderrs.get(name, {})) for name, e in tasks.items()}
    results["results"].update(results["groups"])  # lm-eval lists a group in `results` too
    results["configs"] = {
        name: {"task": name, **(task_cfgs.get(name, {}).get("config") or {})} for name in tasks
    }
    results["versions"] = {name: entry.get("version") for name, entry in tasks.items()}
    results["versions"].update({g: e.get("version", 1) for g, e in groups.items()})
    results["n-shot"] = {name: 0 for name in tasks}
    results["higher_is_better"] = {
        name: {m: v.get("higher_is_better", True) for m, v in entry.get("metrics", {}).items()}
        for name, entry in tasks.items()
    }
    for g, entry in groups.items():  # a group's metric is its members' headline: their direction
        members = [results["higher_is_better"].get(t, {}) for t in entry.get("tasks", [])]
        results["higher_is_better"][g] = {
            m: next((h[m] for h in members if m in h), True) for m in entry.get("metrics", {})
        }
    results["n-samples"] = {
        name: {
            "original": int(n_original.get(name, entry.get("n_samples", 0))),
            "effective": entry["n_samples"],
        }
        for name, entry in tasks.items()
    }
    results["group_subtasks"] = {g: list(e.get("tasks", [])) for g, e in groups.items()}
    results.update(_identity_keys(results))
    results["transformers_version"] = results.get("transformers_version") or transformers_version()
    if hashes is not None:
        results["task_hashes"] = dict(hashes)
    results.setdefault("task_hashes", {})
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
