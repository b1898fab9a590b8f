"""`evaluate` module for metrics.bleu4: evaluate.load("<this folder>") works offline.

Corpus BLEU-4 exactly as pycocoevalcap (PTB-like tokenization unless tokenize=False).
"""

import datasets
import evaluate

from metrics.bleu import bleu4


class Bleu4(evaluate.Metric):
    """Corpus BLEU-4 exactly as pycocoevalcap (PTB-like tokenization unless tokenize=False)."""

    def _info(self):
        return evaluate.MetricInfo(
            description="Corpus BLEU-4 exactly as pycocoevalcap (PTB-like tokenization unless tokenize=False).",
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
        return {"bleu4": bleu4(list(predictions), [list(r) for r in references], tokenize=tokenize)}
