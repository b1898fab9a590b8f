"""`evaluate` module for metrics.ciou: evaluate.load("<this folder>") works offline.

Cumulative IoU (LISA): sum of intersections / (sum of unions + 1e-10), 0 when all masks are empty; one example = one query mask (one or more frames) as COCO RLE.
"""

import evaluate

from metrics.evaluate_modules.info import metric_info, rle
from metrics.grounding import ciou

DESCRIPTION = "Cumulative IoU (LISA): sum of intersections / (sum of unions + 1e-10), 0 when all masks are empty; one example = one query mask (one or more frames) as COCO RLE."


class CIoU(evaluate.Metric):
    """Cumulative IoU (LISA): sum of intersections / (sum of unions + 1e-10), 0 when all masks are empty; one example = one query mask (one or more frames) as COCO RLE."""

    def _info(self):
        return metric_info(DESCRIPTION, rle(), rle())

    def _compute(self, predictions, references):
        return {"ciou": ciou(list(predictions), list(references))}
