"""cIoU, gIoU (masks and boxes), box converters and COCO AP50 through pycocotools."""

import numpy as np
import pytest

from harness_metrics import (
    ap50,
    box_iou,
    ciou,
    encode_rle,
    giou,
    giou_boxes,
    per_query_iou,
    xywh_to_xyxy,
    xyxy_to_xywh,
)


def masks_pair(rng, n, h=20, w=24):
    preds = [rng.random((h, w)) < rng.uniform(0, 0.6) for _ in range(n)]
    gts = [rng.random((h, w)) < rng.uniform(0, 0.6) for _ in range(n)]
    return preds, gts


def lisa_reference(queries_pred, queries_gt):
    """LISA's validate() loop transcribed: one image per frame, meters summed over the dataset."""
    inter_sum = union_sum = acc_sum = 0.0
    count = 0
    for pred, gt in zip(queries_pred, queries_gt, strict=True):
        pred, gt = np.asarray(pred, bool), np.asarray(gt, bool)
        pred, gt = (pred[None], gt[None]) if pred.ndim == 2 else (pred, gt)
        for output_i, mask_i in zip(pred, gt, strict=True):  # each frame is one image with one mask
            intersection_i = float(np.sum(output_i & mask_i))
            union_i = float(np.sum(output_i | mask_i))
            acc = intersection_i / (union_i + 1e-5)
            if union_i == 0:
                acc += 1.0  # no-object target
            inter_sum += intersection_i
            union_sum += union_i
            acc_sum += acc  # acc_iou_meter.update(acc / 1, n=1)
            count += 1
    return inter_sum / (union_sum + 1e-10), acc_sum / count


def test_hand_cases():
    a = np.zeros((4, 4), bool)
    b = np.zeros((4, 4), bool)
    a[:2] = True  # 8 pixels
    b[1:3] = True  # 8 pixels, 4 shared -> IoU 4/12
    empty = np.zeros((4, 4), bool)
    preds, gts = [a, empty, a], [b, empty, empty]
    # gIoU: mean(1/3, 1 (both empty), 0); cIoU: (4 + 0 + 0) / (12 + 0 + 8)
    assert giou(preds, gts) == pytest.approx((1 / 3 + 1 + 0) / 3)
    assert ciou(preds, gts) == pytest.approx(4 / 20)
    # LISA: every mask empty -> cIoU 0/(0 + 1e-10) = 0, gIoU 1 (each image a no-object target).
    assert ciou([empty], [empty]) == 0.0
    assert giou([empty], [empty]) == 1.0


def test_giou_averages_per_frame_not_per_pooled_query():
    # One query over 2 frames: frame 0 IoU 4/12, frame 1 prediction dropped (IoU 0) -> gIoU 1/6,
    # while pooling the query's pixels would give 4/20.
    a = np.zeros((2, 4, 4), bool)
    b = np.zeros((2, 4, 4), bool)
    a[0, :2] = True
    b[:, 1:3] = True
    assert giou([a], [b]) == pytest.approx((4 / 12) / 2, rel=1e-5)
    assert ciou([a], [b]) == pytest.approx(4 / 20)
    assert per_query_iou([a], [b]).tolist() == pytest.approx([(4 / 12) / 2], rel=1e-5)


def test_random_video_queries_equal_lisa_loop_exactly():
    rng = np.random.default_rng(0)
    preds, gts = [], []
    for _ in range(25):
        t = int(rng.integers(1, 6))
        p = rng.random((t, 12, 10)) < rng.uniform(0, 0.5)
        g = rng.random((t, 12, 10)) < rng.uniform(0, 0.5)
        p[rng.random(t) < 0.3] = False  # dropped frames
        g[rng.random(t) < 0.2] = False  # frames without the object
        preds.append(p)
        gts.append(g)
    ref_ciou, ref_giou = lisa_reference(preds, gts)
    assert ciou(preds, gts) == pytest.approx(ref_ciou, abs=1e-12)
    assert giou(preds, gts) == pytest.approx(ref_giou, abs=1e-12)


def test_random_against_straightforward_loops():
    rng = np.random.default_rng(0)
    preds, gts = masks_pair(rng, 30)
    inter = [
        sum(int(p[i, j] and g[i, j]) for i in range(p.shape[0]) for j in range(p.shape[1]))
        for p, g in zip(preds, gts, strict=False)
    ]
    union = [
        sum(int(p[i, j] or g[i, j]) for i in range(p.shape[0]) for j in range(p.shape[1]))
        for p, g in zip(preds, gts, strict=False)
    ]
    assert ciou(preds, gts) == pytest.approx(sum(inter) / sum(union), rel=1e-9)
    assert giou(preds, gts) == pytest.approx(
        np.mean([i / u if u else 1.0 for i, u in zip(inter, union, strict=False)]), rel=1e-5
    )


def test_ciou_equals_giou_when_all_unions_equal():
    rng = np.random.default_rng(1)
    preds, gts = [], []
    for _ in range(10):
        k = int(rng.integers(0, 11))
        p = np.zeros(20, bool)
        g = np.zeros(20, bool)
        p[:10] = True  # union is always the first 15 pixels
        g[10 - k : 15] = True
        preds.append(p.reshape(4, 5))
        gts.append(g.reshape(4, 5))
    assert ciou(preds, gts) == pytest.approx(giou(preds, gts), rel=1e-5)


def test_rle_and_arrays_identical():
    rng = np.random.default_rng(2)
    preds, gts = masks_pair(rng, 8)
    rle_p = [encode_rle(p)[0] for p in preds]
    rle_g = [encode_rle(g)[0] for g in gts]
    assert ciou(rle_p, rle_g) == ciou(preds, gts)
    assert giou(rle_p, gts) == giou(preds, gts)


def test_boxes_and_converters():
    assert box_iou([[0, 0, 2, 2]], [[1, 1, 2, 2]]).tolist() == pytest.approx([1 / 7])
    assert giou_boxes([[0, 0, 2, 2], [5, 5, 0, 0]], [[0, 0, 2, 2], [5, 5, 0, 0]]) == 1.0
    assert giou_boxes([[0, 0, 1, 1]], [[3, 3, 1, 1]]) == 0.0
    assert xyxy_to_xywh([1, 2, 4, 6]).tolist() == [1, 2, 3, 4]
    boxes = np.array([[1.0, 2, 3, 4], [0, 0, 5, 5]])
    assert np.allclose(xyxy_to_xywh(xywh_to_xyxy(boxes)), boxes)
    with pytest.raises(ValueError, match="x2 < x1"):
        xyxy_to_xywh([4, 2, 1, 6])
    with pytest.raises(ValueError, match=r"\[x, y, w, h\]"):
        giou_boxes([[0, 0, 1]], [[0, 0, 1]])


def test_wrong_inputs():
    with pytest.raises(ValueError, match="one mask per query"):
        ciou(np.zeros((2, 4, 4), bool), np.zeros((2, 4, 4), bool))
    with pytest.raises(ValueError, match="query 0"):
        giou([np.zeros((4, 4), bool)], [np.zeros((4, 5), bool)])


def test_ap50_ground_truth_as_prediction_is_one():
    rng = np.random.default_rng(3)
    gts = []
    for image in range(5):
        for _ in range(3):
            x, y = rng.uniform(0, 100, 2)
            gts.append(
                {"image_id": image, "category_id": int(rng.integers(1, 3)), "bbox": [x, y, 20.0, 30.0]}
            )
    preds = [dict(g, score=0.9) for g in gts]
    assert ap50(preds, gts) == pytest.approx(1.0)
    masks = [np.zeros((40, 40), bool) for _ in range(3)]
    for i, m in enumerate(masks):
        m[5 + 10 * i : 12 + 10 * i, 5:30] = True
    seg_gts = [{"image_id": 0, "segmentation": m} for m in masks]
    seg_preds = [{"image_id": 0, "segmentation": encode_rle(m)[0], "score": 0.5} for m in masks]
    assert ap50(seg_preds, seg_gts, iou_type="segm") == pytest.approx(1.0)


def test_ap50_hand_case_false_positive_ranked_first():
    # One ground truth; a confident miss then a correct box: precision 1/2 at recall 1 -> AP50 = 0.5.
    gts = [{"image_id": 1, "bbox": [0, 0, 10, 10]}]
    preds = [
        {"image_id": 1, "bbox": [50, 50, 10, 10], "score": 0.9},
        {"image_id": 1, "bbox": [1, 0, 10, 10], "score": 0.5},
    ]
    assert ap50(preds, gts) == pytest.approx(0.5, abs=0.01)
    preds[0]["score"] = 0.1  # ranked after the hit: precision 1 up to recall 1
    assert ap50(preds, gts) == pytest.approx(1.0)
    assert np.isnan(ap50(preds, []))
    with pytest.raises(ValueError, match="score"):
        ap50([{"image_id": 1, "bbox": [0, 0, 1, 1]}], gts)
