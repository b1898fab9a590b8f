"""Bootstrap intervals from samples files: per-cell CIs for report tables and paired deltas for compare.

Both resample clusters (the task's `cluster_field`, the video by default), exactly as the results'
headline CIs do, so a table cell's interval and a compare delta's interval mean the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

from harness.report.loading import task_config
from harness_metrics import bootstrap_ci

N_RESAMPLES = 1000
Where = Optional[Callable[[dict], bool]]


def cluster_of(record: dict[str, Any], cluster_field: Optional[str]) -> str:
    """The record's cluster id: its doc's cluster field, else its doc id (as the core's aggregation)."""
    doc = record.get("doc") or {}
    if cluster_field:
        return str(doc.get(cluster_field, record.get("doc_id")))
    return str(record.get("doc_id"))


def as_number(v: Any) -> Optional[float]:
    """A per-sample score as a float; None for a missing score or a corpus metric's item (a pair, a dict),
    which has no per-sample value (its value is the corpus aggregate in results.json)."""
    if v is None or isinstance(v, (list, tuple, dict, str)):
        return None
    return float(v)


def metric_values(
    records: Sequence[dict[str, Any]], metric: str, cluster_field: Optional[str], where: Where = None
) -> tuple[list[float], list[str]]:
    """Per-sample values of `metric` over scored samples (no error, score not None) passing `where`."""
    values, clusters = [], []
    for r in records:
        if r.get("error") or (where is not None and not where(r)):
            continue
        v = as_number((r.get("scores") or {}).get(metric))
        if v is None:
            continue
        values.append(v)
        clusters.append(cluster_of(r, cluster_field))
    return values, clusters


def mean_ci(
    values: Sequence[float],
    clusters: Sequence[str],
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    confidence: float = 0.95,
) -> Optional[tuple[float, float]]:
    """Clustered percentile bootstrap interval of the mean, or None with fewer than two values."""
    if len(values) < 2:
        return None
    lo, hi = bootstrap_ci(
        values, clusters=clusters, n_resamples=n_resamples, confidence=confidence, seed=seed
    )
    return float(lo), float(hi)


def ci_from_samples(
    run: dict[str, Any], task: str, metric: str, where: Where = None, seed: Optional[int] = None
) -> Optional[tuple[float, float]]:
    """A CI of `metric`'s mean over the run's samples of `task` passing `where`; None without samples."""
    records = (run.get("_samples") or {}).get(task)
    if not records:
        return None
    cluster_field = task_config(run, task).get("cluster_field")
    values, clusters = metric_values(records, metric, cluster_field, where)
    if seed is None:
        seed = int((run.get("config") or {}).get("seed") or 0)
    return mean_ci(values, clusters, seed=seed)


def field_equals(field: str, value: Any) -> Callable[[dict], bool]:
    """A `where` predicate: the record's doc has `field` equal (as text) to `value`."""
    want = str(value)
    return lambda r: str((r.get("doc") or {}).get(field)) == want


def paired_values(
    base: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]], metric: str, cluster_field: Optional[str]
) -> tuple[list[float], list[float], list[str]]:
    """(base values, new values, clusters) over the doc ids both runs scored for `metric`, in base order."""

    def scored(records: Sequence[dict[str, Any]]) -> dict[str, tuple[float, dict]]:
        out = {}
        for r in records:
            v = as_number((r.get("scores") or {}).get(metric))
            if r.get("error") or v is None:
                continue
            out[str(r.get("doc_id"))] = (v, r)
        return out

    b, n = scored(base), scored(new)
    bv, nv, cl = [], [], []
    for doc_id, (value, rec) in b.items():
        if doc_id in n:
            bv.append(value)
            nv.append(n[doc_id][0])
            cl.append(cluster_of(rec, cluster_field))
    return bv, nv, cl
