"""`evaluate` module for metrics.giou: evaluate.load("<this folder>") works offline.

LISA gIoU: mean per-image IoU, I / (U + 1e-5), 1 when both masks are empty; one example = one image (frame) mask as COCO RLE.
"""

import evaluate

from metrics.evaluate_modules.info import metric_info, rle
from metrics.grounding import giou

DESCRIPTION = "LISA gIoU: mean per-image IoU, I / (U + 1e-5), 1 when both masks are empty; one example = one image (frame) mask as COCO RLE."


class GIoU(evaluate.Metric):
    """LISA gIoU: mean per-image IoU, I / (U + 1e-5), 1 when both masks are empty; one example = one image (frame) mask as COCO RLE."""

    def _info(self):
        return metric_info(DESCRIPTION, rle(), rle())

    def _compute(self, predictions, references):
        return {"giou": giou(list(predictions), list(references))}
