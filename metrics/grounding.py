"""Referring segmentation and grounding measures as LISA's evaluation computes them: cIoU and gIoU.

Reference: dvlab-research/LISA, `train_ds.py::validate()`. Each image contributes, for every target mask,
the foreground intersection I and union U (`intersectionAndUnionGPU`, class 1). Then
  cIoU = sum(I) / (sum(U) + 1e-10)             -> 0.0 when every prediction and target is empty;
  gIoU = mean over masks of I / (U + 1e-5), plus 1 where U == 0 (an empty target predicted empty scores 1).
For video queries one frame is one image: gIoU averages the per-frame IoU over every frame of every query
(a query with more frames weighs more, as an image with more masks does in LISA), and cIoU pools the pixel
counts of all frames. `per_query_iou` is each query's mean frame IoU (the per-sample value).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from harness_metrics.masks import as_boxes, mask_pair

CIOU_EPS = 1e-10  # LISA: intersection_meter.sum / (union_meter.sum + 1e-10)
GIOU_EPS = 1e-5  # LISA: intersection_i / (union_i + 1e-5)


def frame_areas(
    predictions: Sequence[Any], ground_truths: Sequence[Any]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per query, the per-frame (intersection, union) pixel counts as two int64 arrays of length T."""
    if isinstance(predictions, np.ndarray) or isinstance(ground_truths, np.ndarray):
        raise ValueError(
            "predictions/ground_truths: expected a list with one mask per query "
            "(each a boolean (H, W) or (T, H, W) array or COCO RLE), not a single array"
        )
    if len(predictions) != len(ground_truths):
        raise ValueError(
            f"got {len(predictions)} predictions and {len(ground_truths)} ground truths; expected one of each per query"
        )
    out = []
    for i, (pred_i, gt_i) in enumerate(zip(predictions, ground_truths, strict=False)):
        try:
            pred, gt = mask_pair(pred_i, gt_i)
        except ValueError as err:
            raise ValueError(f"query {i}: {err}") from None
        inter = np.count_nonzero((pred & gt).reshape(len(pred), -1), axis=1).astype(np.int64)
        union = np.count_nonzero((pred | gt).reshape(len(pred), -1), axis=1).astype(np.int64)
        out.append((inter, union))
    return out


def frame_iou(inter: np.ndarray, union: np.ndarray) -> np.ndarray:
    """LISA's per-image IoU: I / (U + 1e-5), and 1.0 where U == 0 (no object, none predicted)."""
    inter = np.asarray(inter, dtype=float)
    union = np.asarray(union, dtype=float)
    return inter / (union + GIOU_EPS) + (union == 0)


def ciou_from_counts(inter: np.ndarray, union: np.ndarray) -> float:
    """cIoU from pooled pixel counts: sum(I) / (sum(U) + 1e-10); nan when there is nothing to pool."""
    inter, union = np.asarray(inter), np.asarray(union)
    if inter.size == 0:
        return float("nan")
    return float(inter.sum() / (union.sum() + CIOU_EPS))


def giou_from_counts(inter: np.ndarray, union: np.ndarray) -> float:
    """gIoU from per-frame counts: the mean LISA per-image IoU; nan when there are no frames."""
    ious = frame_iou(inter, union)
    return float(ious.mean()) if ious.size else float("nan")


def _pooled(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    areas = frame_areas(predictions, ground_truths)
    if not areas:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate([a[0] for a in areas]), np.concatenate([a[1] for a in areas])


def per_query_iou(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> np.ndarray:
    """Each query's mean per-frame IoU (LISA's per-image IoU, 1 for a frame with both masks empty)."""
    return np.array([frame_iou(i, u).mean() for i, u in frame_areas(predictions, ground_truths)], dtype=float)


def ciou(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> float:
    """Cumulative IoU (LISA): total intersection / (total union + 1e-10) over all frames of all queries."""
    return ciou_from_counts(*_pooled(predictions, ground_truths))


def giou(predictions: Sequence[Any], ground_truths: Sequence[Any]) -> float:
    """LISA's gIoU: mean per-image (per-frame) IoU over all frames of all queries; empty/empty frames count 1."""
    return giou_from_counts(*_pooled(predictions, ground_truths))


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
