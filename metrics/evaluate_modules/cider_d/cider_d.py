"""`evaluate` module for metrics.cider_d: evaluate.load("<this folder>") works offline.

CIDEr-D (sigma 6, x10, df over the evaluated corpus) exactly as pycocoevalcap.
"""

import datasets
import evaluate

from metrics.cider import cider_d


class CiderD(evaluate.Metric):
    """CIDEr-D (sigma 6, x10, df over the evaluated corpus) exactly as pycocoevalcap."""

    def _info(self):
        return evaluate.MetricInfo(
            description="CIDEr-D (sigma 6, x10, df over the evaluated corpus) exactly as pycocoevalcap.",
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
        return {"cider_d": cider_d(list(predictions), [list(r) for r in references], tokenize=tokenize)}
