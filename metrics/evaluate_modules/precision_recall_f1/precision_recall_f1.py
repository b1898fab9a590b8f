"""`evaluate` module for metrics.precision_recall_f1: evaluate.load("<this folder>") works offline.

Set-matching P/R/F1 per example (exact item equality), averaged over examples.
"""

import datasets
import evaluate

from metrics.set_matching import precision_recall_f1


class PrecisionRecallF1(evaluate.Metric):
    """Set-matching P/R/F1 per example (exact item equality), averaged over examples."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Set-matching P/R/F1 per example (exact item equality), averaged over examples.",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("string")),
                    "references": datasets.Sequence(datasets.Value("string")),
                }
            ),
        )

    def _compute(self, predictions, references):
        rows = [precision_recall_f1(list(p), list(r)) for p, r in zip(predictions, references, strict=False)]
        return (
            {k: sum(row[k] for row in rows) / len(rows) for k in ("precision", "recall", "f1")}
            if rows
            else {}
        )
