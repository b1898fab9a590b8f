"""`evaluate` module for metrics.boundary_f: evaluate.load("<this folder>") works offline.

DAVIS contour accuracy F; one example = one frame mask as COCO RLE; returns the mean F over examples.
"""

import evaluate

from metrics.davis import boundary_f
from metrics.evaluate_modules.info import metric_info, rle

DESCRIPTION = (
    "DAVIS contour accuracy F; one example = one frame mask as COCO RLE; returns the mean F over examples."
)


class BoundaryF(evaluate.Metric):
    """DAVIS contour accuracy F; one example = one frame mask as COCO RLE; returns the mean F over examples."""

    def _info(self):
        return metric_info(DESCRIPTION, rle(), rle())

    def _compute(self, predictions, references):
        return {"boundary_f": float(boundary_f(list(predictions), list(references)).mean())}
