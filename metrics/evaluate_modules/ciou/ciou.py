"""`evaluate` module for metrics.ciou: evaluate.load("<this folder>") works offline.

Cumulative IoU (LISA); one example = one query mask as COCO RLE.
"""

import evaluate

from metrics.evaluate_modules.info import metric_info, rle
from metrics.grounding import ciou

DESCRIPTION = "Cumulative IoU (LISA); one example = one query mask as COCO RLE."


class CIoU(evaluate.Metric):
    """Cumulative IoU (LISA); one example = one query mask as COCO RLE."""

    def _info(self):
        return metric_info(DESCRIPTION, rle(), rle())

    def _compute(self, predictions, references):
        return {"ciou": ciou(list(predictions), list(references))}
