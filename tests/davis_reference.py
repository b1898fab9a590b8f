"""The DAVIS 2017 evaluation's per-frame algorithm, written out as the reference our metrics are checked
(tests/test_metrics_davis.py) and timed (bench/bench_metrics.py) against."""

from __future__ import annotations

import cv2
import numpy as np


def seg2bmap(seg: np.ndarray) -> np.ndarray:
    """The boundary map of a mask: shifted copies, explicit last row and column (DAVIS's seg2bmap)."""
    seg = seg.astype(bool)
    e = np.zeros_like(seg)
    s = np.zeros_like(seg)
    se = np.zeros_like(seg)
    e[:, :-1] = seg[:, 1:]
    s[:-1, :] = seg[1:, :]
    se[:-1, :-1] = seg[1:, 1:]
    b = seg ^ e | seg ^ s | seg ^ se
    b[-1, :] = seg[-1, :] ^ e[-1, :]
    b[:, -1] = seg[:, -1] ^ s[:, -1]
    b[-1, -1] = 0
    return b


def boundary_f(pred: np.ndarray, gt: np.ndarray, bound_th: float = 0.008) -> float:
    """One frame's boundary F (DAVIS's f_measure: scikit-image disk, two OpenCV dilations)."""
    from skimage.morphology import disk

    bound_pix = bound_th if bound_th >= 1 else np.ceil(bound_th * np.linalg.norm(pred.shape))
    fg_boundary = seg2bmap(pred)
    gt_boundary = seg2bmap(gt)
    fg_dil = cv2.dilate(fg_boundary.astype(np.uint8), disk(bound_pix).astype(np.uint8))
    gt_dil = cv2.dilate(gt_boundary.astype(np.uint8), disk(bound_pix).astype(np.uint8))
    gt_match = gt_boundary * fg_dil
    fg_match = fg_boundary * gt_dil
    n_fg = np.sum(fg_boundary)
    n_gt = np.sum(gt_boundary)
    if n_fg == 0 and n_gt > 0:
        precision, recall = 1, 0
    elif n_fg > 0 and n_gt == 0:
        precision, recall = 0, 1
    elif n_fg == 0 and n_gt == 0:
        precision, recall = 1, 1
    else:
        precision = np.sum(fg_match) / float(n_fg)
        recall = np.sum(gt_match) / float(n_gt)
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def statistics(values: np.ndarray) -> tuple[float, float, float]:
    """Mean, recall (> 0.5) and decay over 4 bins of per-frame values (DAVIS's db_statistics)."""
    mean = np.nanmean(values)
    recall = np.nanmean(values > 0.5)
    ids = (np.round(np.linspace(1, len(values), 5) + 1e-10) - 1).astype(np.uint8)
    bins = [values[ids[i] : ids[i + 1] + 1] for i in range(4)]
    return float(mean), float(recall), float(np.nanmean(bins[0]) - np.nanmean(bins[3]))


def j_and_f(pred: np.ndarray, gt: np.ndarray) -> dict[str, float]:
    """The DAVIS 2017 evaluation's per-frame algorithm (db_eval_iou, f_measure, db_statistics)."""
    j = np.zeros(len(gt))
    f = np.zeros(len(gt))
    for t in range(len(gt)):
        inter = np.sum(pred[t] & gt[t])
        union = np.sum(pred[t] | gt[t])
        j[t] = 1.0 if union == 0 else inter / union
        f[t] = boundary_f(pred[t], gt[t])
    out = {}
    for name, values in (("J", j), ("F", f)):
        out[f"{name}_mean"], out[f"{name}_recall"], out[f"{name}_decay"] = statistics(values)
    return {"J&F": (out["J_mean"] + out["F_mean"]) / 2, **out}
