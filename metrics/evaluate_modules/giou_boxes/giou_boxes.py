"""`evaluate` module for metrics.giou_boxes: evaluate.load("<this folder>") works offline.

Mean per-query IoU of [x, y, w, h] boxes.
"""

import datasets
import evaluate

from metrics.grounding import giou_boxes


class GIoUBoxes(evaluate.Metric):
    """Mean per-query IoU of [x, y, w, h] boxes."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Mean per-query IoU of [x, y, w, h] boxes.",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("float64")),
                    "references": datasets.Sequence(datasets.Value("float64")),
                }
            ),
        )

    def _compute(self, predictions, references):
        return {"giou_boxes": giou_boxes([list(p) for p in predictions], [list(r) for r in references])}
