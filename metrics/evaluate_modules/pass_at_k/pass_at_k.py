"""`evaluate` module for metrics.pass_at_k: evaluate.load("<this folder>") works offline.

Unbiased pass@k; one example = one problem: predictions = correctness of each of its n samples (0/1), references = unused (pass 1).
"""

import datasets
import evaluate

from metrics.pass_at_k import pass_at_k


class PassAtK(evaluate.Metric):
    """Unbiased pass@k; one example = one problem: predictions = correctness of each of its n samples (0/1), references = unused (pass 1)."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Unbiased pass@k; one example = one problem: predictions = correctness of each of its n samples (0/1), references = unused (pass 1).",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("int64")),
                    "references": datasets.Value("int64"),
                }
            ),
        )

    def _compute(self, predictions, references, k=1):
        return {f"pass@{k}": pass_at_k([len(p) for p in predictions], [int(sum(p)) for p in predictions], k)}
