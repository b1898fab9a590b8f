"""Referring segmentation and grounding measures: cumulative IoU (cIoU) and mean per-query IoU (gIoU).

Definitions follow LISA (dvlab-research/LISA, validate()): cIoU = sum of intersections / sum of unions over
the dataset; gIoU = mean over queries of the per-query IoU, where a query whose prediction and ground truth
are both empty scores 1. LISA adds epsilons (1e-5, 1e-10) to the denominators; here the division is exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metrics.masks import as_boxes, mask_pair


def _areas(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Per-query (intersection, union) pixel counts; each query's mask may span several frames."""
    if isinstance(predictions, np.ndarray) or isinstance(ground_truths, np.ndarray):
        raise ValueError(
            "predictions/ground_truths: expected a list with one mask per query "
            "(each a boolean (H, W) or (T, H, W) array or COCO RLE), not a single array"
        )
    if len(predictions) != len(ground_truths):
        raise ValueError(
            f"got {len(predictions)} predictions and {len(ground_truths)} ground truths; expected one of each per query"
        )
    inter = np.zeros(len(predictions), dtype=np.int64)
    union = np.zeros(len(predictions), dtype=np.int64)
    for i, (pred_i, gt_i) in enumerate(zip(predictions, ground_truths, strict=False)):
        try:
            pred, gt = mask_pair(pred_i, gt_i)
        except ValueError as err:
            raise ValueError(f"query {i}: {err}") from None
        inter[i] = np.count_nonzero(pred & gt)
        union[i] = np.count_nonzero(pred | gt)
    return inter, union


def per_query_iou(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> np.ndarray:
    """IoU of each query's predicted mask with its ground truth; 1.0 when both are empty."""
    inter, union = _areas(predictions, ground_truths)
    out = np.ones(len(inter), dtype=float)
    nonempty = union > 0
    out[nonempty] = inter[nonempty] / union[nonempty]
    return out


def ciou(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> float:
    """Cumulative IoU: total intersection over total union across all queries (1.0 if every union is empty)."""
    inter, union = _areas(predictions, ground_truths)
    if len(inter) == 0:
        return float("nan")
    total_union = int(union.sum())
    return 1.0 if total_union == 0 else float(inter.sum() / total_union)


def giou(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> float:
    """Mean per-query IoU (LISA's gIoU); a query with both masks empty counts as 1."""
    ious = per_query_iou(predictions, ground_truths)
    return float(ious.mean()) if ious.size else float("nan")


def box_iou(boxes_a: Any, boxes_b: Any) -> np.ndarray:
    """Element-wise IoU of paired [x, y, w, h] boxes; two zero-area boxes score 1.0 if identical, else 0.0."""
    a = as_boxes(boxes_a, "predictions")
    b = as_boxes(boxes_b, "ground_truths")
    if a.shape != b.shape:
        raise ValueError(
            f"got {len(a)} predicted boxes and {len(b)} ground-truth boxes; expected one of each per query"
        )
    x1 = np.maximum(a[:, 0], b[:, 0])
    y1 = np.maximum(a[:, 1], b[:, 1])
    x2 = np.minimum(a[:, 0] + a[:, 2], b[:, 0] + b[:, 2])
    y2 = np.minimum(a[:, 1] + a[:, 3], b[:, 1] + b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    union = a[:, 2] * a[:, 3] + b[:, 2] * b[:, 3] - inter
    out = np.all(a == b, axis=1).astype(float)
    nonempty = union > 0
    out[nonempty] = inter[nonempty] / union[nonempty]
    return out


def giou_boxes(predictions: Any, ground_truths: Any) -> float:
    """Mean IoU over queries for grounding boxes [x, y, w, h] (the box variant of gIoU)."""
    ious = box_iou(predictions, ground_truths)
    return float(ious.mean()) if ious.size else float("nan")
