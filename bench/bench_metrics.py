"""Speed of the metrics against their reference algorithms, measured in the same run at identical values.

1. j_and_f on 100 frames of 854x480 masks vs the DAVIS 2017 reference algorithm (per-frame seg2bmap,
   scikit-image disk, two OpenCV dilations per frame), written out here as the baseline. Target >= 5x.
2. cider_d on 5,000 candidates x 5 references vs pycocoevalcap's Cider scorer. Target: no slower.
"""

from __future__ import annotations

import math
import random
import time

import cv2
import numpy as np

from metrics import cider_d, j_and_f


def _reference_seg2bmap(seg: np.ndarray) -> np.ndarray:
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


def _reference_f(pred: np.ndarray, gt: np.ndarray, bound_th: float = 0.008) -> float:
    from skimage.morphology import disk

    bound_pix = bound_th if bound_th >= 1 else np.ceil(bound_th * np.linalg.norm(pred.shape))
    fg_boundary = _reference_seg2bmap(pred)
    gt_boundary = _reference_seg2bmap(gt)
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


def _reference_statistics(values: np.ndarray) -> tuple[float, float, float]:
    mean = np.nanmean(values)
    recall = np.nanmean(values > 0.5)
    ids = (np.round(np.linspace(1, len(values), 5) + 1e-10) - 1).astype(np.uint8)
    bins = [values[ids[i] : ids[i + 1] + 1] for i in range(4)]
    return float(mean), float(recall), float(np.nanmean(bins[0]) - np.nanmean(bins[3]))


def reference_j_and_f(pred: np.ndarray, gt: np.ndarray) -> dict[str, float]:
    """The DAVIS 2017 evaluation's per-frame algorithm (db_eval_iou, f_measure, db_statistics)."""
    j = np.zeros(len(gt))
    f = np.zeros(len(gt))
    for t in range(len(gt)):
        inter = np.sum(pred[t] & gt[t])
        union = np.sum(pred[t] | gt[t])
        j[t] = 1.0 if union == 0 else inter / union
        f[t] = _reference_f(pred[t], gt[t])
    jm, jr, jd = _reference_statistics(j)
    fm, fr, fd = _reference_statistics(f)
    return {
        "J&F": (jm + fm) / 2,
        "J_mean": jm,
        "J_recall": jr,
        "J_decay": jd,
        "F_mean": fm,
        "F_recall": fr,
        "F_decay": fd,
    }


def moving_object_masks(
    frames: int = 100, height: int = 480, width: int = 854, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A moving, deforming object (ground truth) and a noisy, shifted prediction of it."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:height, :width]
    gt = np.zeros((frames, height, width), dtype=bool)
    pred = np.zeros_like(gt)
    for t in range(frames):
        cy, cx = height * (0.3 + 0.4 * t / frames), width * (0.2 + 0.6 * t / frames)
        ry, rx = 60 + 20 * math.sin(t / 7), 90 + 25 * math.cos(t / 5)
        gt[t] = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1
        dy, dx = rng.integers(-6, 7, size=2)
        pred[t] = ((yy - cy - dy) / (ry * 0.95)) ** 2 + ((xx - cx - dx) / (rx * 1.05)) ** 2 <= 1
        if t % 10 == 3:
            pred[t] = False  # a missed frame
        if t % 17 == 5:
            y0, x0 = rng.integers(0, height - 40), rng.integers(0, width - 40)
            pred[t, y0 : y0 + 30, x0 : x0 + 30] = True  # a false-positive blob
    return pred, gt


def _best_time(fn, repeats: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def bench_j_and_f(fast: bool) -> dict:
    frames = 10 if fast else 100
    pred, gt = moving_object_masks(frames)
    ours_t, ours = _best_time(lambda: j_and_f(pred, gt), 1 if fast else 3)
    ref_t, ref = _best_time(lambda: reference_j_and_f(pred, gt), 1 if fast else 2)
    worst = max(abs(ours[k] - ref[k]) for k in ref)
    if worst > 1e-12:
        raise AssertionError(f"j_and_f differs from the DAVIS reference by {worst}: {ours} vs {ref}")
    return {
        "figure": f"j_and_f, {frames} frames of 854x480 masks (seconds)",
        "ours": ours_t,
        "baseline": ref_t,
        "ratio": ref_t / ours_t,
        "unit": "s",
        "target": ">= 5x faster than the DAVIS reference (skimage disk + cv2.dilate per frame), same values",
    }


def _captions(n: int, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    vocab = (
        "a the man woman child dog cat red blue green small large cube sphere cylinder cone rubber metal "
        "moves rotates orbits left right slowly quickly around center behind in front of next to on"
    ).split()

    def sentence() -> str:
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(4, 14)))

    return [sentence() for _ in range(n)], [[sentence() for _ in range(5)] for _ in range(n)]


def bench_cider(fast: bool) -> dict:
    from pycocoevalcap.cider.cider import Cider

    n = 300 if fast else 5000
    cands, refs = _captions(n)
    gts = {i: refs[i] for i in range(n)}
    res = {i: [cands[i]] for i in range(n)}
    ours_t, ours = _best_time(lambda: cider_d(cands, refs, tokenize=False), 1 if fast else 3)
    ref_t, ref = _best_time(lambda: Cider().compute_score(gts, res)[0], 1 if fast else 2)
    if abs(ours - ref) > 1e-9:
        raise AssertionError(f"cider_d {ours} differs from pycocoevalcap {ref}")
    return {
        "figure": f"cider_d, {n} candidates x 5 references (seconds)",
        "ours": ours_t,
        "baseline": ref_t,
        "ratio": ref_t / ours_t,
        "unit": "s",
        "target": "no slower than pycocoevalcap's Cider scorer (ratio >= 1), same value",
    }


def run(fast: bool = False) -> list[dict]:
    """Both figures; fast=True shrinks the inputs so the run takes a few seconds."""
    return [bench_j_and_f(fast), bench_cider(fast)]


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['figure']}: ours {row['ours']:.4f} {row['unit']}, baseline {row['baseline']:.4f} {row['unit']}, "
            f"ratio {row['ratio']:.2f} (target: {row['target']})"
        )
