"""Sensitivity tables: candidate reordering (accuracy per order, flip rates, how many orders were right)
and test-time scaling (pass@k for k = 1..5).

Reordering follows the public analysis: an item (video, dimension) counts only when every order has a
valid answer; accuracy spread is the range (max - min over orders, the public plot_dims.py table) and the
population standard deviation over orders; the clip flip rate (CFR)
compares chosen clips, the correctness flip rate (FR) right/wrong outcomes, for every pair of orders
(metrics.flip_rates).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from harness_metrics import flip_rates
from harness_tasks.tempcloze.scoring import MAX_K


def _valid(rec: dict) -> bool:
    return not rec.get("error") and bool((rec.get("parsed") or {}).get("valid"))


def _chosen(rec: dict) -> Any:
    return ((rec.get("parsed") or {}).get("extra") or {}).get("chosen")


def _correct(rec: dict) -> bool:
    return _valid(rec) and (rec.get("parsed") or {}).get("answer") == rec.get("target")


def _order_stats(quads: list[dict[int, dict]], orders: list[int]) -> dict[str, Any]:
    n = len(quads)
    out: dict[str, Any] = {"n_items": n}
    if n == 0:
        return out
    accs = {f"r{o}": sum(_correct(q[o]) for q in quads) / n for o in orders}
    mean = sum(accs.values()) / len(accs)
    out["accuracy_by_order"] = {k: round(v, 10) for k, v in accs.items()}
    out["accuracy_mean"] = round(mean, 10)
    out["accuracy_range"] = round(max(accs.values()) - min(accs.values()), 10)
    out["accuracy_std"] = round(math.sqrt(sum((a - mean) ** 2 for a in accs.values()) / len(accs)), 10)
    if len(orders) >= 2:
        flips = flip_rates({f"r{o}": [_chosen(q[o]) for q in quads] for o in orders}, ["GT"] * n)
        out["clip_flip_rate"] = round(flips["clip_flip_rate"], 10)
        out["correctness_flip_rate"] = round(flips["correctness_flip_rate"], 10)
        out["pairs"] = [
            {
                "orders": [p["order_a"], p["order_b"]],
                "clip_flip_rate": round(p["clip_flip_rate"], 10),
                "clip_flips": round(p["clip_flip_rate"] * n),
                "correctness_flip_rate": round(p["correctness_flip_rate"], 10),
                "correctness_flips": round(p["correctness_flip_rate"] * n),
                "n_items": n,
            }
            for p in flips["pairs"]
        ]
    hist = Counter(sum(_correct(q[o]) for o in orders) for q in quads)
    out["orders_right_histogram"] = {str(k): hist.get(k, 0) for k in range(len(orders), -1, -1)}
    return out


def reordering_table(records: list[dict]) -> dict[str, Any]:
    """The candidate-reordering analysis over every rotation the task ran, overall and per dimension."""
    groups: dict[tuple[str, str], dict[int, dict]] = defaultdict(dict)
    for r in records:
        doc = r.get("doc") or {}
        groups[(str(doc.get("stem")), str(doc.get("dimension")))][int(doc.get("rotation", 0))] = r
    orders = sorted({o for g in groups.values() for o in g})
    complete = {k: g for k, g in groups.items() if all(o in g and _valid(g[o]) for o in orders)}
    out: dict[str, Any] = {
        "orders": [f"r{o}" for o in orders],
        "order_meaning": "rK = the base order cyclically shifted right by K (public orders A, B, C, D = r0..r3)",
        "n_items_seen": len(groups),
        "n_items_excluded": len(groups) - len(complete),
        "overall": _order_stats(list(complete.values()), orders),
        "per_dimension": {},
    }
    for dim in sorted({k[1] for k in complete}):
        out["per_dimension"][dim] = _order_stats([g for k, g in complete.items() if k[1] == dim], orders)
    return out


def pass_at_k_table(records: list[dict]) -> dict[str, Any]:
    """Mean pass@k (k = 1..5) over items with at least k valid samples, overall and per dimension."""

    def cell(rows: list[dict]) -> dict[str, Any]:
        out = {}
        for k in range(1, MAX_K + 1):
            vals = [
                (r.get("scores") or {}).get(f"pass_at_{k}")
                for r in rows
                if not r.get("error") and (r.get("scores") or {}).get(f"pass_at_{k}") is not None
            ]
            out[f"pass@{k}"] = {"value": round(sum(vals) / len(vals), 10) if vals else None, "n": len(vals)}
        return out

    by_dim: dict[str, list[dict]] = defaultdict(list)
    counts: Counter = Counter()
    for r in records:
        by_dim[str((r.get("doc") or {}).get("dimension"))].append(r)
        samples = ((r.get("parsed") or {}).get("extra") or {}).get("samples")
        counts[len([s for s in samples if s is not None]) if isinstance(samples, list) else 0] += 1
    return {
        "overall": cell(records),
        "per_dimension": {d: cell(rows) for d, rows in sorted(by_dim.items())},
        "valid_samples_per_item": {str(k): v for k, v in sorted(counts.items())},
        "chance": {f"pass@{k}": round(1 - 0.75**k, 10) for k in range(1, MAX_K + 1)},
    }
