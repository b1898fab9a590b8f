"""Speed of the metrics against their reference algorithms, measured in the same run at identical values.

1. j_and_f on 100 frames of 854x480 masks vs the DAVIS 2017 reference algorithm (per-frame seg2bmap,
   scikit-image disk, two OpenCV dilations per frame), written out here as the baseline. Target >= 5x.
2. cider_d on 5,000 candidates x 5 references vs pycocoevalcap's Cider scorer. Target: no slower.
"""

from __future__ import annotations

import math
import random
import time

import numpy as np

from bench import figure_row, from_tests
from harness_metrics import cider_d, j_and_f

davis_reference = from_tests("davis_reference")


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
    ref_t, ref = _best_time(lambda: davis_reference.j_and_f(pred, gt), 1 if fast else 2)
    worst = max(abs(ours[k] - ref[k]) for k in ref)
    if worst > 1e-12:
        raise AssertionError(f"j_and_f differs from the DAVIS reference by {worst}: {ours} vs {ref}")
    figure = f"j_and_f, {frames} frames of 854x480 masks (seconds)"
    target = ">= 5x faster than the DAVIS reference (skimage disk + cv2.dilate per frame), same values"
    return figure_row(figure, ours_t, ref_t, "s", target, ratio=ref_t / ours_t)


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
    figure = f"cider_d, {n} candidates x 5 references (seconds)"
    target = "no slower than pycocoevalcap's Cider scorer (ratio >= 1), same value"
    return figure_row(figure, ours_t, ref_t, "s", target, ratio=ref_t / ours_t)


def run(fast: bool = False) -> list[dict]:
    """Both figures; fast=True shrinks the inputs so the run takes a few seconds."""
    return [bench_j_and_f(fast), bench_cider(fast)]


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['figure']}: ours {row['ours']:.4f} {row['unit']}, baseline {row['baseline']:.4f} {row['unit']}, "
            f"ratio {row['ratio']:.2f} (target: {row['target']})"
        )
