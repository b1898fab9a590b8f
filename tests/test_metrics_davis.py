"""DAVIS J, F and J&F: hand-computed cases, every empty-mask convention, RLE/array equality, and random
masks against a straightforward per-frame implementation of the DAVIS 2017 algorithm."""

import davis_reference
import numpy as np
import pytest

from harness_metrics import boundary_f, encode_rle, j_and_f, jaccard
from harness_metrics.davis import davis_statistics, disk_kernel, seg2bmap

davis_bmap = davis_reference.seg2bmap
davis_f = davis_reference.boundary_f


def davis_j(pred, gt):
    union = (pred | gt).sum()
    return 1.0 if union == 0 else (pred & gt).sum() / union


def random_masks(rng, frames, h, w):
    """Blobby random masks: a few rectangles and ellipses per frame, some frames empty."""
    out = np.zeros((frames, h, w), dtype=bool)
    yy, xx = np.mgrid[:h, :w]
    for t in range(frames):
        if rng.random() < 0.15:
            continue
        for _ in range(rng.integers(1, 4)):
            cy, cx = rng.integers(0, h), rng.integers(0, w)
            ry, rx = rng.integers(1, h // 2), rng.integers(1, w // 2)
            if rng.random() < 0.5:
                out[t] |= ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1
            else:
                out[t, cy : cy + ry, cx : cx + rx] = True
    return out


def test_jaccard_hand_cases():
    gt = np.zeros((4, 4, 4), dtype=bool)
    pred = np.zeros_like(gt)
    gt[1, :2, :2] = True  # frame 1: prediction empty -> 0
    pred[2, :2, :2] = True  # frame 2: truth empty -> 0
    gt[3, :, :2] = True
    pred[3, :, 1:3] = True  # frame 3: 4 shared of 12 -> 1/3
    assert jaccard(pred, gt).tolist() == pytest.approx([1.0, 0.0, 0.0, 1 / 3])


def test_boundary_f_empty_conventions():
    gt = np.zeros((4, 40, 40), dtype=bool)
    pred = np.zeros_like(gt)
    gt[1, 10:20, 10:20] = True  # prediction empty, truth not: P = 1, R = 0 -> F = 0
    pred[2, 10:20, 10:20] = True  # truth empty: P = 0, R = 1 -> F = 0
    gt[3, 10:20, 10:20] = pred[3, 10:20, 10:20] = True  # identical -> 1
    assert boundary_f(pred, gt).tolist() == [1.0, 0.0, 0.0, 1.0]


def test_boundary_f_hand_case_far_apart():
    # Two squares far beyond the tolerance: no boundary pixel matches, F = 0.
    gt = np.zeros((1, 100, 200), dtype=bool)
    pred = np.zeros_like(gt)
    gt[0, 10:30, 10:30] = True
    pred[0, 60:80, 150:170] = True
    assert boundary_f(pred, gt)[0] == 0.0


def test_seg2bmap_matches_davis_and_disk_matches_skimage():
    from skimage.morphology import disk

    rng = np.random.default_rng(1)
    masks = random_masks(rng, 6, 23, 31) | (rng.random((6, 23, 31)) < 0.05)
    assert np.array_equal(seg2bmap(masks), np.stack([davis_bmap(m) for m in masks]))
    for radius in (1, 3, 8, 12):
        assert np.array_equal(disk_kernel(radius), disk(radius).astype(np.uint8))


@pytest.mark.parametrize("shape", [(12, 48, 64), (5, 480, 854)])
def test_random_masks_match_reference(shape):
    rng = np.random.default_rng(shape[1])
    gt = random_masks(rng, *shape)
    pred = random_masks(rng, *shape)
    pred[::3] = gt[::3] ^ (rng.random(gt[::3].shape) < 0.01)  # near-misses too
    assert np.allclose(jaccard(pred, gt), [davis_j(p, g) for p, g in zip(pred, gt, strict=False)], atol=1e-12)
    assert np.allclose(
        boundary_f(pred, gt), [davis_f(p, g) for p, g in zip(pred, gt, strict=False)], atol=1e-12
    )


def test_rle_and_arrays_give_identical_scores():
    rng = np.random.default_rng(3)
    gt, pred = random_masks(rng, 7, 30, 41), random_masks(rng, 7, 30, 41)
    assert j_and_f(encode_rle(pred), encode_rle(gt)) == j_and_f(pred, gt)
    uncompressed = [{"size": [30, 41], "counts": _list_counts(m)} for m in gt]
    assert np.array_equal(jaccard(pred, uncompressed), jaccard(pred, gt))
    assert np.array_equal(boundary_f(pred[0], gt[0]), boundary_f(pred[:1], gt[:1]))


def _list_counts(mask):
    """Uncompressed COCO RLE counts: run lengths of the column-major mask, starting with a zero run."""
    flat = mask.T.reshape(-1)
    edges = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    runs = np.diff(np.concatenate([[0], edges, [flat.size]])).tolist()
    return ([0] + runs) if flat[0] else runs


def test_properties_symmetric_and_bounded():
    rng = np.random.default_rng(4)
    for _ in range(5):
        a, b = random_masks(rng, 8, 25, 33), random_masks(rng, 8, 25, 33)
        assert np.array_equal(jaccard(a, b), jaccard(b, a))
        assert np.allclose(boundary_f(a, b), boundary_f(b, a))
        stats = j_and_f(a, b)
        assert 0.0 <= stats["J&F"] <= 1.0
        assert stats["J&F"] == pytest.approx((stats["J_mean"] + stats["F_mean"]) / 2)
    same = random_masks(rng, 4, 20, 20)
    assert j_and_f(same, same)["J&F"] == 1.0


def test_statistics_recall_and_decay_bins():
    # 8 frames: DAVIS bin edges round(linspace(1, 8, 5) + 1e-10) - 1 = [0, 2, 4, 5, 7]; bins overlap at
    # their edges, so the first bin is frames 0..2 and the last frames 5..7.
    values = np.array([1.0, 1.0, 0.8, 0.6, 0.4, 0.4, 0.2, 0.0])
    mean, recall, decay = davis_statistics(values)
    assert mean == pytest.approx(values.mean())
    assert recall == pytest.approx(4 / 8)
    assert decay == pytest.approx(np.mean([1.0, 1.0, 0.8]) - np.mean([0.4, 0.2, 0.0]))


def test_wrong_inputs_raise_value_error():
    with pytest.raises(ValueError, match="same"):
        jaccard(np.zeros((2, 4, 4), bool), np.zeros((2, 4, 5), bool))
    with pytest.raises(ValueError, match="expected"):
        jaccard(np.zeros((1, 2, 4, 4), bool), np.zeros((1, 2, 4, 4), bool))
    with pytest.raises(ValueError, match="expected"):
        boundary_f("mask.png", np.zeros((4, 4), bool))
    with pytest.raises(ValueError, match="counts"):
        jaccard({"size": [2, 2], "counts": [1, 1]}, np.zeros((2, 2), bool))
