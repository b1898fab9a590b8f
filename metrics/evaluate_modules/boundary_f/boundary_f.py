"""`evaluate` module for metrics.boundary_f: evaluate.load("<this folder>") works offline.

DAVIS contour accuracy F; one example = one frame mask as COCO RLE; returns the mean F over examples.
"""

import datasets
import evaluate

from metrics.davis import boundary_f


class BoundaryF(evaluate.Metric):
    """DAVIS contour accuracy F; one example = one frame mask as COCO RLE; returns the mean F over examples."""

    def _info(self):
        return evaluate.MetricInfo(
            description="DAVIS contour accuracy F; one example = one frame mask as COCO RLE; returns the mean F over examples.",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {
                    "predictions": {
                        "size": datasets.Sequence(datasets.Value("int64")),
                        "counts": datasets.Value("string"),
                    },
                    "references": {
                        "size": datasets.Sequence(datasets.Value("int64")),
                        "counts": datasets.Value("string"),
                    },
                }
            ),
        )

    def _compute(self, predictions, references):
        return {"boundary_f": float(boundary_f(list(predictions), list(references)).mean())}
