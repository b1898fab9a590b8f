"""DAVIS video object segmentation measures: region similarity J, contour accuracy F, and J&F statistics.

Matches the DAVIS 2017 evaluation (davisvideochallenge/davis2017-evaluation, metrics.py and utils.py):
J = |P and G| / |P or G| (1 when both are empty); F from `seg2bmap` boundaries matched within a disk of
radius ceil(0.008 * image diagonal). The computation is vectorised over frames and restricted to each
frame's boundary bounding box, with one OpenCV dilation per frame for both masks (two channels).
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from harness_metrics.masks import mask_pair


def jaccard(prediction: Any, ground_truth: Any) -> np.ndarray:
    """Per-frame region similarity J = |P and G| / |P or G|; 1.0 for a frame where both masks are empty."""
    pred, gt = mask_pair(prediction, ground_truth)
    return _j_from_counts(_frame_counts(pred, gt, None))


def _j_from_counts(counts: np.ndarray) -> np.ndarray:
    inter, union = counts[:, 0], counts[:, 1]
    out = np.ones(len(counts), dtype=float)
    nonempty = union > 0
    out[nonempty] = inter[nonempty] / union[nonempty]
    return out


def boundary_radius(height: int, width: int, bound_th: float = 0.008) -> int:
    """DAVIS boundary tolerance in pixels: bound_th itself if >= 1, else ceil(bound_th * diagonal)."""
    if bound_th >= 1:
        return int(bound_th)
    return int(math.ceil(bound_th * math.hypot(height, width)))


def disk_kernel(radius: int) -> np.ndarray:
    """A disk structuring element {(x, y): x^2 + y^2 <= r^2} as uint8 (what skimage.morphology.disk gives)."""
    grid = np.arange(-radius, radius + 1)
    return ((grid[None, :] ** 2 + grid[:, None] ** 2) <= radius**2).astype(np.uint8)


def seg2bmap(masks: np.ndarray) -> np.ndarray:
    """DAVIS `seg2bmap` boundaries for a (T, H, W) or (H, W) boolean stack, vectorised over frames.

    A pixel is on the boundary when it differs from its east, south or south-east neighbour; the last
    row/column only compare along the image edge. Padding by edge replication reproduces that rule.
    """
    seg = np.asarray(masks, dtype=bool)
    pad = [(0, 0)] * (seg.ndim - 2) + [(0, 1), (0, 1)]
    ext = np.pad(seg, pad, mode="edge")
    east = ext[..., :-1, 1:]
    south = ext[..., 1:, :-1]
    south_east = ext[..., 1:, 1:]
    return (seg ^ east) | (seg ^ south) | (seg ^ south_east)


def _frame_counts(pred: np.ndarray, gt: np.ndarray, bound_th: float | None) -> np.ndarray:
    """(T, 6) counts per frame: intersection, union, and (if bound_th is given) boundary pixels of the
    prediction, those matched, boundary pixels of the truth, those matched.

    Work is restricted to each frame's bounding box of P or G, found for all frames at once; the
    boundary pixels lie inside that box grown by one pixel towards the origin.
    """
    frames, height, width = pred.shape
    rows_any = pred.any(axis=2) | gt.any(axis=2)
    cols_any = pred.any(axis=1) | gt.any(axis=1)
    kernel = disk_kernel(boundary_radius(height, width, bound_th)) if bound_th is not None else None
    counts = np.zeros((frames, 6), dtype=np.int64)
    for t in range(frames):
        rows = np.flatnonzero(rows_any[t])
        if rows.size == 0:
            continue
        cols = np.flatnonzero(cols_any[t])
        y0, y1 = max(int(rows[0]) - 1, 0), min(int(rows[-1]) + 2, height)
        x0, x1 = max(int(cols[0]) - 1, 0), min(int(cols[-1]) + 2, width)
        crop_p = pred[t, y0:y1, x0:x1]
        crop_g = gt[t, y0:y1, x0:x1]
        counts[t, 0] = np.count_nonzero(crop_p & crop_g)
        counts[t, 1] = np.count_nonzero(crop_p | crop_g)
        if kernel is None:
            continue
        bp = _crop_bmap(pred[t], y0, y1, x0, x1, crop_p)
        bg = _crop_bmap(gt[t], y0, y1, x0, x1, crop_g)
        n_p = np.count_nonzero(bp)
        n_g = np.count_nonzero(bg)
        counts[t, 2] = n_p
        counts[t, 4] = n_g
        if n_p and n_g:
            # One dilation for both boundaries (two channels). Boundary pixels outside the box do not
            # exist, so OpenCV's border handling (no contribution) is exact.
            dilated = cv2.dilate(np.dstack([bp, bg]).view(np.uint8), kernel)
            counts[t, 3] = np.count_nonzero(bp & dilated[..., 1].view(bool))
            counts[t, 5] = np.count_nonzero(bg & dilated[..., 0].view(bool))
    return counts


def _crop_bmap(full: np.ndarray, y0: int, y1: int, x0: int, x1: int, crop: np.ndarray) -> np.ndarray:
    """seg2bmap of full[y0:y1, x0:x1] with the true neighbour row/column (edge replication at the border)."""
    height, width = full.shape
    ext = full[y0 : min(y1 + 1, height), x0 : min(x1 + 1, width)]
    pad_rows = 1 if y1 == height else 0
    pad_cols = 1 if x1 == width else 0
    if pad_rows or pad_cols:
        ext = np.pad(ext, ((0, pad_rows), (0, pad_cols)), mode="edge")
    return (crop ^ ext[:-1, 1:]) | (crop ^ ext[1:, :-1]) | (crop ^ ext[1:, 1:])


def _f_from_counts(counts: np.ndarray) -> np.ndarray:
    """DAVIS F per frame from boundary counts, with its conventions for empty boundaries."""
    n_p, m_p, n_g, m_g = (counts[:, i].astype(float) for i in range(2, 6))
    precision = np.where(n_p > 0, m_p / np.maximum(n_p, 1), 1.0)
    recall = np.where(n_g > 0, m_g / np.maximum(n_g, 1), 1.0)
    # Empty prediction vs non-empty truth: P = 1, R = 0; non-empty prediction vs empty truth: P = 0, R = 1.
    precision = np.where((n_p > 0) & (n_g == 0), 0.0, precision)
    recall = np.where((n_p == 0) & (n_g > 0), 0.0, recall)
    denom = precision + recall
    return np.where(denom > 0, 2 * precision * recall / np.where(denom > 0, denom, 1.0), 0.0)


def boundary_f(prediction: Any, ground_truth: Any, bound_th: float = 0.008) -> np.ndarray:
    """Per-frame DAVIS contour accuracy F (boundary F-measure with tolerance ceil(bound_th * diagonal))."""
    pred, gt = mask_pair(prediction, ground_truth)
    return _f_from_counts(_frame_counts(pred, gt, bound_th))


def davis_statistics(per_frame: Any) -> tuple[float, float, float]:
    """DAVIS (mean, recall, decay) of per-frame values: recall = fraction > 0.5, decay = mean of the first
    of 4 temporal bins minus mean of the last (bins as in davis2017 utils.db_statistics)."""
    values = np.asarray(per_frame, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(
            f"per_frame: expected a non-empty 1-D sequence of per-frame scores, got shape {values.shape}"
        )
    mean = float(np.nanmean(values))
    recall = float(np.nanmean(values > 0.5))
    # DAVIS casts these indices to uint8, which wraps beyond 256 frames; plain ints are used here.
    ids = (np.round(np.linspace(1, values.size, 5) + 1e-10) - 1).astype(np.int64)
    first = values[ids[0] : ids[1] + 1]
    last = values[ids[3] : ids[4] + 1]
    decay = float(np.nanmean(first) - np.nanmean(last))
    return mean, recall, decay


def j_and_f(prediction: Any, ground_truth: Any, bound_th: float = 0.008) -> dict[str, float]:
    """DAVIS statistics for one object over its frames: J/F mean, recall and decay, and J&F = (J + F) / 2."""
    pred, gt = mask_pair(prediction, ground_truth)
    counts = _frame_counts(pred, gt, bound_th)
    j_frames = _j_from_counts(counts)
    f_frames = _f_from_counts(counts)
    j_mean, j_recall, j_decay = davis_statistics(j_frames)
    f_mean, f_recall, f_decay = davis_statistics(f_frames)
    return {
        "J&F": (j_mean + f_mean) / 2,
        "J_mean": j_mean,
        "J_recall": j_recall,
        "J_decay": j_decay,
        "F_mean": f_mean,
        "F_recall": f_recall,
        "F_decay": f_decay,
    }
