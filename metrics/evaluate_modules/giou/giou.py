"""`evaluate` module for metrics.giou: evaluate.load("<this folder>") works offline.

Mean per-query IoU (LISA gIoU); one example = one query mask as COCO RLE.
"""

import datasets
import evaluate

from metrics.grounding import giou


class GIoU(evaluate.Metric):
    """Mean per-query IoU (LISA gIoU); one example = one query mask as COCO RLE."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Mean per-query IoU (LISA gIoU); one example = one query mask as COCO RLE.",
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
        return {"giou": giou(list(predictions), list(references))}
