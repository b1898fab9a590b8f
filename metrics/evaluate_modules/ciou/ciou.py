"""`evaluate` module for metrics.ciou: evaluate.load("<this folder>") works offline.

Cumulative IoU (LISA); one example = one query mask as COCO RLE.
"""

import datasets
import evaluate

from metrics.grounding import ciou


class CIoU(evaluate.Metric):
    """Cumulative IoU (LISA); one example = one query mask as COCO RLE."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Cumulative IoU (LISA); one example = one query mask as COCO RLE.",
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
        return {"ciou": ciou(list(predictions), list(references))}
