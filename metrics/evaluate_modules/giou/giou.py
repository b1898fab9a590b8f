"""`evaluate` module for metrics.giou: evaluate.load("<this folder>") works offline.

Mean per-query IoU (LISA gIoU); one example = one query mask as COCO RLE.
"""

import evaluate

from metrics.evaluate_modules.info import metric_info, rle
from metrics.grounding import giou

DESCRIPTION = "Mean per-query IoU (LISA gIoU); one example = one query mask as COCO RLE."


class GIoU(evaluate.Metric):
    """Mean per-query IoU (LISA gIoU); one example = one query mask as COCO RLE."""

    def _info(self):
        return metric_info(DESCRIPTION, rle(), rle())

    def _compute(self, predictions, references):
        return {"giou": giou(list(predictions), list(references))}
