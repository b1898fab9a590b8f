"""`evaluate` module for metrics.ap50: evaluate.load("<this folder>") works offline.

COCO AP at IoU 0.5 through pycocotools' COCOeval; one example = one image, its detections and its ground
truth each a JSON string (see the description below).
"""

import datasets
import evaluate

from metrics.coco_ap import ap50
from metrics.evaluate_modules.json_rows import decode_row

_DESCRIPTION = (
    "COCO AP at IoU 0.5 (all areas, 100 detections per image) computed by pycocotools' COCOeval. "
    "One example = one image (its row number is its image id). predictions: a JSON list of that image's "
    'detections, each {"bbox": [x, y, w, h], "score": s} (iou_type="bbox") or {"segmentation": {"size": '
    '[H, W], "counts": RLE string}, "score": s} (iou_type="segm"), with an optional "category_id" '
    '(default 1). references: a JSON list of its ground-truth objects, the same without "score", with an '
    'optional "iscrowd". An image without objects is "[]". Pass iou_type="segm" to compute() for masks. '
    "Returns {'ap50': value}, nan when no image has ground truth."
)


def _annotations(rows, column, with_score):
    """Flatten per-image JSON lists into annotation dicts whose image_id is the row number."""
    shape = "a list of annotation objects (" + ("with 'score'" if with_score else "ground truth") + ")"
    out = []
    for row, text in enumerate(rows):
        for i, item in enumerate(decode_row(text, column, row, list, shape)):
            if not isinstance(item, dict):
                raise ValueError(
                    f"{column}[{row}][{i}]: expected an annotation object, got {type(item).__name__}"
                )
            if "image_id" in item and item["image_id"] != row:
                raise ValueError(
                    f"{column}[{row}][{i}]: image_id {item['image_id']!r} differs from the row number {row}; "
                    "one row is one image, so leave image_id out"
                )
            out.append({**item, "image_id": row})
    return out


class AP50(evaluate.Metric):
    """COCO AP50 over images given as rows of JSON-encoded detections and ground truth."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references, iou_type="bbox"):
        detections = _annotations(predictions, "predictions", with_score=True)
        ground_truths = _annotations(references, "references", with_score=False)
        return {"ap50": ap50(detections, ground_truths, iou_type=iou_type)}
