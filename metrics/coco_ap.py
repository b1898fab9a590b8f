"""COCO average precision at IoU 0.5 (AP50) for boxes and masks, computed by pycocotools' COCOeval.

Inputs are plain lists of annotations; they are turned into in-memory COCO objects so that the numbers
are exactly pycocotools' (area ranges, maxDets = 100, 101-point interpolation, crowd handling).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pycocotools import mask as coco_mask
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from harness_metrics.masks import as_boxes, as_mask_stack, encode_rle

_IOU_TYPES = {"bbox": "bbox", "segm": "segmentation"}


def _segmentation_rle(value: Any, where: str) -> dict:
    """One mask (boolean (H, W) array or RLE dict) as a compressed RLE with bytes counts."""
    stack = as_mask_stack(value, where)
    if stack.shape[0] != 1:
        raise ValueError(
            f"{where}: expected a single (H, W) mask per annotation, got {stack.shape[0]} frames"
        )
    rle = encode_rle(stack)[0]
    return {"size": rle["size"], "counts": rle["counts"].encode("ascii")}


def _annotation(item: Mapping, index: int, kind: str, iou_type: str, with_score: bool) -> dict:
    where = f"{kind}[{index}]"
    if not isinstance(item, Mapping):
        raise ValueError(
            f"{where}: expected a dict with 'image_id' and '{_IOU_TYPES[iou_type]}', got {type(item).__name__}"
        )
    field = _IOU_TYPES[iou_type]
    for key in ("image_id", field) + (("score",) if with_score else ()):
        if key not in item:
            raise ValueError(
                f"{where}: missing '{key}' (iou_type={iou_type!r} needs image_id, {field}{', score' if with_score else ''})"
            )
    ann = {
        "id": index + 1,
        "image_id": item["image_id"],
        "category_id": item.get("category_id", 1),
        "iscrowd": int(item.get("iscrowd", 0)),
    }
    if iou_type == "bbox":
        box = as_boxes(item["bbox"], f"{where}.bbox")
        if len(box) != 1:
            raise ValueError(f"{where}.bbox: expected one [x, y, w, h] box")
        ann["bbox"] = [float(v) for v in box[0]]
        ann["area"] = float(box[0, 2] * box[0, 3])
    else:
        rle = _segmentation_rle(item["segmentation"], f"{where}.segmentation")
        ann["segmentation"] = rle
        ann["area"] = float(coco_mask.area(rle))
        ann["bbox"] = [float(v) for v in coco_mask.toBbox(rle)]
    if with_score:
        ann["score"] = float(item["score"])
    return ann


def ap50(
    predictions: Sequence[Mapping],
    ground_truths: Sequence[Mapping],
    iou_type: str = "bbox",
) -> float:
    """COCO AP at IoU 0.5 (all areas, 100 detections) via pycocotools' COCOeval.

    ground_truths: dicts with image_id, bbox [x, y, w, h] (or segmentation: array/RLE), optional
    category_id (default 1) and iscrowd; predictions: the same plus a confidence 'score'.
    Returns nan when there is no ground truth (COCOeval reports -1 then).
    """
    if iou_type not in _IOU_TYPES:
        raise ValueError(f"iou_type: expected 'bbox' or 'segm', got {iou_type!r}")
    gts = [
        _annotation(g, i, "ground_truths", iou_type, with_score=False) for i, g in enumerate(ground_truths)
    ]
    dts = [_annotation(p, i, "predictions", iou_type, with_score=True) for i, p in enumerate(predictions)]
    if not gts:
        return float("nan")
    image_ids = sorted({a["image_id"] for a in gts} | {a["image_id"] for a in dts}, key=str)
    categories = sorted({a["category_id"] for a in gts} | {a["category_id"] for a in dts}, key=str)
    images = {i: {"id": i} for i in image_ids}
    if iou_type == "segm":
        for ann in gts + dts:
            height, width = ann["segmentation"]["size"]
            image = images[ann["image_id"]]
            if image.setdefault("height", height) != height or image.setdefault("width", width) != width:
                raise ValueError(
                    f"image {ann['image_id']!r}: masks of different sizes ({image['height']}x{image['width']} and "
                    f"{height}x{width}); expected every mask of an image to have the image's (H, W)"
                )
    gt_coco = COCO()
    gt_coco.dataset = {
        "images": list(images.values()),
        "annotations": gts,
        "categories": [{"id": c} for c in categories],
    }
    with contextlib.redirect_stdout(io.StringIO()):
        gt_coco.createIndex()
        dt_coco = COCO()
        dt_coco.dataset = {
            "images": gt_coco.dataset["images"],
            "annotations": dts,
            "categories": gt_coco.dataset["categories"],
        }
        dt_coco.createIndex()
        evaluator = COCOeval(gt_coco, dt_coco, iouType=iou_type)
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    value = float(evaluator.stats[1])
    return float("nan") if value < 0 or np.isnan(value) else value
