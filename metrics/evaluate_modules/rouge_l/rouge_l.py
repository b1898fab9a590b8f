"""`evaluate` module for metrics.rouge_l: evaluate.load("<this folder>") works offline.

ROUGE-L (beta 1.2) exactly as pycocoevalcap.
"""

import datasets
import evaluate

from metrics.rouge import rouge_l


class RougeL(evaluate.Metric):
    """ROUGE-L (beta 1.2) exactly as pycocoevalcap."""

    def _info(self):
        return evaluate.MetricInfo(
            description="ROUGE-L (beta 1.2) exactly as pycocoevalcap.",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Sequence(datasets.Value("string")),
                }
            ),
        )

    def _compute(self, predictions, references, tokenize=True):
        return {"rouge_l": rouge_l(list(predictions), [list(r) for r in references], tokenize=tokenize)}
