"""`evaluate` module for metrics.mae: evaluate.load("<this folder>") works offline.

Mean absolute error; predictions 'indefinite' are excluded (CycliST). Predictions are strings so 'indefinite' can be passed.
"""

import datasets
import evaluate

from metrics.answers import mae


class Mae(evaluate.Metric):
    """Mean absolute error; predictions 'indefinite' are excluded (CycliST). Predictions are strings so 'indefinite' can be passed."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Mean absolute error; predictions 'indefinite' are excluded (CycliST). Predictions are strings so 'indefinite' can be passed.",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("float64")}
            ),
        )

    def _compute(self, predictions, references):
        return {"mae": mae(list(predictions), list(references))}
