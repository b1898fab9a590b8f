"""`evaluate` module for metrics.bleu4: evaluate.load("<this folder>") works offline.

Corpus BLEU-4 exactly as pycocoevalcap (PTB-like tokenization unless tokenize=False).
"""

import evaluate

from metrics.bleu import bleu4
from metrics.evaluate_modules.info import captions, metric_info

DESCRIPTION = "Corpus BLEU-4 exactly as pycocoevalcap (PTB-like tokenization unless tokenize=False)."


class Bleu4(evaluate.Metric):
    """Corpus BLEU-4 exactly as pycocoevalcap (PTB-like tokenization unless tokenize=False)."""

    def _info(self):
        return metric_info(DESCRIPTION, *captions())

    def _compute(self, predictions, references, tokenize=True):
        return {"bleu4": bleu4(list(predictions), [list(r) for r in references], tokenize=tokenize)}
