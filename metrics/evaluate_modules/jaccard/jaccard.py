"""`evaluate` module for metrics.jaccard: evaluate.load("<this folder>") works offline.

DAVIS region similarity J; one example = one frame mask as COCO RLE; returns the mean J over examples.
"""

import datasets
import evaluate

from metrics.davis import jaccard


class Jaccard(evaluate.Metric):
    """DAVIS region similarity J; one example = one frame mask as COCO RLE; returns the mean J over examples."""

    def _info(self):
        return evaluate.MetricInfo(
            description="DAVIS region similarity J; one example = one frame mask as COCO RLE; returns the mean J over examples.",
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
        return {"jaccard": float(jaccard(list(predictions), list(references)).mean())}
