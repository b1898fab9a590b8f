"""`evaluate` module for metrics.jaccard: evaluate.load("<this folder>") works offline.

DAVIS region similarity J; one example = one frame mask as COCO RLE; returns the mean J over examples.
"""

import evaluate

from metrics.davis import jaccard
from metrics.evaluate_modules.info import metric_info, rle

DESCRIPTION = (
    "DAVIS region similarity J; one example = one frame mask as COCO RLE; returns the mean J over examples."
)


class Jaccard(evaluate.Metric):
    """DAVIS region similarity J; one example = one frame mask as COCO RLE; returns the mean J over examples."""

    def _info(self):
        return metric_info(DESCRIPTION, rle(), rle())

    def _compute(self, predictions, references):
        return {"jaccard": float(jaccard(list(predictions), list(references)).mean())}
