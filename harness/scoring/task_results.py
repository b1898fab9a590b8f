"""Aggregate per-sample records into a task's results: metrics with clustered bootstrap CIs, breakdowns."""

from __future__ import annotations

import logging
import math
import numbers
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any, Optional

from harness.contract.hooks import check_return
from harness.data.task import Task
from harness.errors import HookContractError
from harness.scoring.aggregations import aggregate_with_note

log = logging.getLogger("harness.scoring.task_results")

N_BOOTSTRAP = 1000
ERROR_EXAMPLES = 5  # first errors shown with their message in results (all are counted)
DROPPED_EXAMPLES = 5  # dropped rows shown with their detail in results (all are counted)


def _clean(x: float) -> Optional[float]:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 10)


def metric_values(
    records: list[dict], name: str, cluster_field: Optional[str], corpus: bool = False
) -> tuple[list[Any], list[Any]]:
    """The metric's per-sample values over scored samples (items as they are for a corpus metric, else
    floats), and each sample's cluster (video) id."""
    values, clusters = [], []
    for r in records:
        if r.get("error"):
            continue
        v = (r.get("scores") or {}).get(name)
        if v is None:
            continue
        values.append(v if corpus else float(v))
        doc = r.get("doc") or {}
        clusters.append(str(doc.get(cluster_field, r["doc_id"])) if cluster_field else r["doc_id"])
    return values, clusters


def _breakdown_label(key) -> tuple[str, list[str]]:
    fields = [key] if isinstance(key, str) else list(key)
    return "x".join(fields), fields


def accounting(
    records: list[dict],
    dropped: list[dict] = (),
    n_rows: Optional[int] = None,
    drop_counts: Optional[Mapping[str, int]] = None,
) -> dict[str, Any]:
    """Where every row of the split went: scored (valid or invalid), an error (by kind and reason), dropped
    by the loader (by reason), or not selected (`--limit`); `coverage` = scored / rows.

    `n_rows` is the number of rows the loader gave (before `--limit`, dropped rows not included); it
    defaults to the records given. `drop_counts`: dropped rows per reason when `dropped` holds only examples
    (a rescore carries the counts and examples its results file recorded).
    """
    errors = Counter(r["error"]["kind"] for r in records if r.get("error"))
    by_reason: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        if r.get("error"):
            by_reason[r["error"]["kind"]][str(r["error"].get("reason") or "other")] += 1
    drops = Counter(drop_counts) if drop_counts is not None else Counter(str(d.get("reason") or "other") for d in dropped)
    loaded = len(records) if n_rows is None else int(n_rows)
    rows = loaded + sum(drops.values())
    scored = sum(1 for r in records if not r.get("error"))
    return {
        "n_rows": rows,
        "n_samples": len(records),
        "n_not_selected": max(0, loaded - len(records)),
        "n_scored": scored,
        "n_invalid": sum(
            1 for r in records if not r.get("error") and not (r.get("parsed") or {}).get("valid", True)
        ),
        "n_errors": sum(errors.values()),
        "errors": dict(sorted(errors.items())),
        "errors_by_reason": {k: dict(sorted(v.items())) for k, v in sorted(by_reason.items())},
        "error_examples": [{"doc_id": r.get("doc_id"), **r["error"]} for r in records if r.get("error")][
            :ERROR_EXAMPLES
        ],
        "n_dropped": sum(drops.values()),
        "dropped": dict(sorted(drops.items())),
        "dropped_examples": [dict(d) for d in list(dropped)[:DROPPED_EXAMPLES]],
        "coverage": round(scored / rows, 6) if rows else 0.0,
    }


def aggregate_task(
    task: Task,
    records: list[dict],
    seed: int = 0,
    n_rows: Optional[int] = None,
    dropped: Optional[list[dict]] = None,
    drop_counts: Optional[Mapping[str, int]] = None,
) -> dict[str, Any]:
    """results.json's entry for one task (`n_rows`, `dropped`, `drop_counts`: what the loader gave, see
    `accounting`; `dropped` defaults to the task's last `load_docs`)."""
    cfg = task.config
    out: dict[str, Any] = {
        "version": cfg.version,
        **accounting(records, task.dropped if dropped is None else dropped, n_rows, drop_counts),
        "headline": cfg.headline(),
        "metrics": {},
        "breakdowns": {},
    }
    for m in cfg.metrics:
        agg = task.aggregator(m)
        values, clusters = metric_values(records, m.name, cfg.cluster_field, agg.corpus)
        try:
            value, lo, hi, note = aggregate_with_note(agg, values, clusters, seed, m.bootstrap, N_BOOTSTRAP)
        except Exception as exc:  # a task's aggregation bug: this metric has no value, the run is incomplete
            value, lo, hi, note = math.nan, math.nan, math.nan, None
            error = f"metric '{m.name}': aggregation '{agg.name}' raised {type(exc).__name__}: {exc}"
            out.setdefault("aggregation_errors", []).append(error)
            log.warning("task '%s': %s", task.name, error)
        out["metrics"][m.name] = {
            "value": _clean(value),
            # no interval: null, never [null, null] (datasets' JSON reader, used by lm-eval's tracker, fails on it)
            "ci": None if _clean(lo) is None and _clean(hi) is None else [_clean(lo), _clean(hi)],
            "n": len(values),
            "higher_is_better": m.higher_is_better,
        }
        if note:
            out["metrics"][m.name]["ci_note"] = note
    for key in cfg.breakdowns:
        label, fields = _breakdown_label(key)
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in records:
            doc = r.get("doc") or {}
            groups["|".join(str(doc.get(f)) for f in fields)].append(r)
        table = {}
        for gkey in sorted(groups):
            rows = groups[gkey]
            cell: dict[str, Any] = {"n_samples": len(rows)}
            for m in cfg.metrics:
                agg = task.aggregator(m)
                if agg.own:  # a task's own function runs once, on all rows (see aggregations.py)
                    continue
                values, _ = metric_values(rows, m.name, None, agg.corpus)
                cell[m.name] = {"value": _clean(agg(values)), "n": len(values)}
            table[gkey] = cell
        out["breakdowns"][label] = table
    hook = task.hook("aggregate")
    if hook is not None:
        try:
            out["tables"] = hook(records, task)
        except Exception as exc:  # a task bug: the results file is still written, the run is incomplete
            out["tables_error"] = f"aggregate hook raised {type(exc).__name__}: {exc}"
            log.warning("task '%s': %s", task.name, out["tables_error"])
    return out


def group_metric_values(
    members: list[str], task_results: dict[str, dict], spec: list[tuple], errors: Optional[list[str]] = None
) -> dict[str, Any]:
    """lm-eval's group metrics (its `consolidate_group_results`): for each (metric key, weight_by_size, fn) of
    an aggregate_metric_list, the members' values (those that have the metric) averaged, weighted by each
    member's n of that metric with weight_by_size, or `fn(values, sizes, weight_by_size)` when given. A
    function that raises or returns no number leaves that metric without a value and its reason in `errors`
    (the run is then incomplete), as a task's own aggregation does."""
    metrics = {}
    for key, weighted, fn in spec:
        pairs = [
            (m["value"], int(m.get("n") or 0))
            for t in members
            if (m := task_results[t].get("metrics", {}).get(key)) and m.get("value") is not None
        ]
        if not pairs:
            continue
        values, sizes = [v for v, _ in pairs], [n for _, n in pairs]
        if fn is not None:  # harness.contract.hooks.GroupMetricAggregation: a number, never "0.5" or True
            try:
                value = fn(values, sizes, weighted)
                ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
                what = f"group metric '{key}'"
                check_return(value, "aggregate_metric_list aggregation", what, "a number (float)", ok)
                value = float(value)
            except Exception as exc:  # the group function's bug: no value for this metric, the run incomplete
                value = math.nan
                why = str(exc) if isinstance(exc, HookContractError) else f"{type(exc).__name__}: {exc}"
                error = f"metric '{key}': its aggregate_metric_list aggregation failed: {why}"
                if errors is not None:
                    errors.append(error)
                log.warning("%s", error)
        else:
            weights = sizes if weighted else [1] * len(sizes)
            value = sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights) if sum(weights) else math.nan
        metrics[key] = {"value": _clean(value), "n": sum(sizes), "n_tasks": len(pairs)}
    return metrics


def aggregate_group(
    name: str, members: list[str], task_results: dict[str, dict], how: str, spec: Optional[list[tuple]] = None
) -> dict[str, Any]:
    """A group's metrics: with `spec` (its aggregate_metric_list, see `group_metric_values`) every metric listed;
    else the members' headline metrics, sample-weighted (or a plain mean over tasks)."""
    present = [t for t in members if t in task_results]
    if spec:
        errors: list[str] = []
        metrics = group_metric_values(present, task_results, spec, errors)
        out = {"tasks": present, "aggregate": how, "metrics": metrics, **group_accounting(present, task_results)}
        return {**out, "aggregation_errors": errors} if errors else out
    by_metric: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for t in present:
        res = task_results[t]
        metric = res["metrics"].get(res["headline"], {})
        if metric.get("value") is not None:
            by_metric[res["headline"]].append((metric["value"], metric["n"]))
    metrics = {}
    for mname, pairs in sorted(by_metric.items()):
        if how == "task_mean":
            value = sum(v for v, _ in pairs) / len(pairs)
        else:
            total = sum(n for _, n in pairs)
            value = sum(v * n for v, n in pairs) / total if total else math.nan
        metrics[mname] = {"value": _clean(value), "n": sum(n for _, n in pairs), "n_tasks": len(pairs)}
    return {"tasks": present, "aggregate": how, "metrics": metrics, **group_accounting(present, task_results)}


_SUMMED = ("n_rows", "n_samples", "n_not_selected", "n_scored", "n_invalid", "n_errors", "n_dropped")


def group_accounting(members: list[str], task_results: dict[str, dict]) -> dict[str, Any]:
    """The members' accounting summed: counts, errors and drops by kind/reason, and the group's coverage."""
    out: dict[str, Any] = {k: 0 for k in _SUMMED}
    errors: Counter = Counter()
    dropped: Counter = Counter()
    by_reason: dict[str, Counter] = defaultdict(Counter)
    for t in members:
        res = task_results[t]
        for k in _SUMMED:
            out[k] += int(res.get(k) or 0)
        errors.update(res.get("errors") or {})
        dropped.update(res.get("dropped") or {})
        for kind, reasons in (res.get("errors_by_reason") or {}).items():
            by_reason[kind].update(reasons)
    out["errors"] = dict(sorted(errors.items()))
    out["errors_by_reason"] = {k: dict(sorted(v.items())) for k, v in sorted(by_reason.items())}
    out["dropped"] = dict(sorted(dropped.items()))
    out["coverage"] = round(out["n_scored"] / out["n_rows"], 6) if out["n_rows"] else 0.0
    return out
