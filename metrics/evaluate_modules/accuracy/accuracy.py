"""`evaluate` module for metrics.accuracy: evaluate.load("<this folder>") works offline.

Exact-match accuracy; the answer 'indefinite' counts as wrong (CycliST).
"""

import datasets
import evaluate

from metrics.answers import accuracy


class Accuracy(evaluate.Metric):
    """Exact-match accuracy; the answer 'indefinite' counts as wrong (CycliST)."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Exact-match accuracy; the answer 'indefinite' counts as wrong (CycliST).",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=[
                datasets.Features(
                    {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
                ),
                datasets.Features(
                    {"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}
                ),
                datasets.Features(
                    {"predictions": datasets.Value("float64"), "references": datasets.Value("float64")}
                ),
            ],
        )

    def _compute(self, predictions, references):
        return {"accuracy": accuracy(list(predictions), list(references))}
