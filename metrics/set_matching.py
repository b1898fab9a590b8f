"""Precision, recall and F1 of a predicted set against a ground-truth set under one-to-one matching.

Used for CycliST scene captioning: each predicted object may match at most one ground-truth object and
vice versa. The matching maximises the number of matched pairs (augmenting paths), so the result does not
depend on the order of the lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def max_matching(
    predicted: Sequence[Any], truth: Sequence[Any], match: Callable[[Any, Any], bool]
) -> list[tuple[int, int]]:
    """Maximum one-to-one matching as (predicted index, truth index) pairs, by augmenting paths (Kuhn)."""
    edges = [[j for j, t in enumerate(truth) if match(p, t)] for p in predicted]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(predicted)):
        augment(i, set())
    return sorted((i, j) for j, i in owner.items())


def precision_recall_f1(
    predicted: Sequence[Any], truth: Sequence[Any], match: Callable[[Any, Any], bool] | None = None
) -> dict[str, float]:
    """P/R/F1 of a predicted set vs the truth under a maximum one-to-one matching (default: equality).

    Conventions: both empty -> P = R = F1 = 1; nothing predicted but truth non-empty -> P = 0, R = 0;
    F1 = 0 when P + R = 0. Also returns the counts tp, fp, fn.
    """
    for label, seq in (("predicted", predicted), ("truth", truth)):
        if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
            raise ValueError(
                f"precision_recall_f1: {label} must be a list of items, got {type(seq).__name__}"
            )
    pairs = max_matching(predicted, truth, match or (lambda a, b: a == b))
    tp = len(pairs)
    fp = len(predicted) - tp
    fn = len(truth) - tp
    if not predicted and not truth:
        precision = recall = 1.0
    else:
        precision = tp / len(predicted) if predicted else 0.0
        recall = tp / len(truth) if truth else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "tp": float(tp),
        "fp": float(fp),
        "fn": float(fn),
    }
