"""Object- and cycle-level precision / recall / F1 for CycliST scene captions (paper Tables 11-12).

The paper's matching: a predicted object matches a ground-truth object when every attribute it states
(mesh, material, size, color) equals the ground truth's; unstated attributes do not matter, but an object
that states none never matches. Predictions are matched most specific first (fewest unstated attributes),
each in caption order, each ground-truth object at most once. Cycles are then compared per matched pair;
cycles of unmatched ground-truth objects are false negatives, of unmatched predictions false positives.
"""

from __future__ import annotations

from typing import Any

from harness_metrics import precision_recall_f1
from harness_tasks.cyclist.caption_parser import ATTRIBUTES, NOT_MENTIONED
from harness_tasks.cyclist.vocab import CYCLES


def attributes_match(pred: dict[str, Any], truth: dict[str, Any]) -> bool:
    """Whether every attribute the prediction states equals the ground truth's (at least one stated)."""
    stated = [a for a in ATTRIBUTES if pred.get(a, NOT_MENTIONED) != NOT_MENTIONED]
    return bool(stated) and all(pred[a] == truth.get(a) for a in stated)


def paper_matching(pred: list[dict[str, Any]], truth: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(prediction index, truth index) pairs by the paper's greedy, most-specific-first rule."""
    order = sorted(
        range(len(pred)),
        key=lambda i: (sum(pred[i].get(a, NOT_MENTIONED) == NOT_MENTIONED for a in ATTRIBUTES), i),
    )
    used: set[int] = set()
    pairs = []
    for i in order:
        for j, t in enumerate(truth):
            if j not in used and attributes_match(pred[i], t):
                used.add(j)
                pairs.append((i, j))
                break
    return sorted(pairs)


def caption_scores(pred: list[dict[str, Any]], truth: list[dict[str, Any]]) -> dict[str, float]:
    """obj_precision/recall/f1 and cycle_precision/recall/f1 of one caption, plus their counts."""
    pairs = paper_matching(pred, truth)
    matched = set(pairs)
    objects = precision_recall_f1(
        list(range(len(pred))), list(range(len(truth))), match=lambda i, j: (i, j) in matched
    )
    to_truth = dict(pairs)
    pred_cycles = [
        (("gt", to_truth[i]) if i in to_truth else ("pred", i), c)
        for i, p in enumerate(pred)
        for c in CYCLES
        if p.get(c)
    ]
    true_cycles = [(("gt", j), c) for j, t in enumerate(truth) for c in CYCLES if t.get(c)]
    cycles = precision_recall_f1(pred_cycles, true_cycles)
    out = {f"obj_{k}": v for k, v in objects.items()}
    out.update({f"cycle_{k}": v for k, v in cycles.items()})
    return out
