"""Aggregate per-sample records into a task's results: metrics with clustered bootstrap CIs, breakdowns."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any, Optional

from harness.aggregations import aggregate_items
from harness.task import Task

N_BOOTSTRAP = 1000


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


def aggregate_task(task: Task, records: list[dict], seed: int = 0) -> dict[str, Any]:
    """results.json's entry for one task."""
    cfg = task.config
    errors = Counter(r["error"]["kind"] for r in records if r.get("error"))
    invalid = sum(1 for r in records if not r.get("error") and not (r.get("parsed") or {}).get("valid", True))
    out: dict[str, Any] = {
        "version": cfg.version,
        "n_samples": len(records),
        "n_scored": sum(1 for r in records if not r.get("error")),
        "n_errors": sum(errors.values()),
        "errors": dict(sorted(errors.items())),
        "n_invalid": invalid,
        "headline": cfg.headline(),
        "metrics": {},
        "breakdowns": {},
    }
    for m in cfg.metrics:
        agg = task.aggregator(m)
        values, clusters = metric_values(records, m.name, cfg.cluster_field, agg.corpus)
        value, lo, hi = aggregate_items(agg, values, clusters, seed, m.bootstrap, N_BOOTSTRAP)
        out["metrics"][m.name] = {
            "value": _clean(value),
            "ci": [_clean(lo), _clean(hi)],
            "n": len(values),
            "higher_is_better": m.higher_is_better,
        }
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
                values, _ = metric_values(rows, m.name, None, agg.corpus)
                cell[m.name] = {"value": _clean(agg(values)), "n": len(values)}
            table[gkey] = cell
        out["breakdowns"][label] = table
    hook = task.hook("aggregate")
    if hook is not None:
        out["tables"] = hook(records, task)
    return out


def aggregate_group(name: str, members: list[str], task_results: dict[str, dict], how: str) -> dict[str, Any]:
    """A group's headline: the members' headline metrics, sample-weighted (or a plain mean over tasks)."""
    present = [t for t in members if t in task_results]
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
    return {"tasks": present, "aggregate": how, "metrics": metrics}
