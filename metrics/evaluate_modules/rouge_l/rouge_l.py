"""`evaluate` module for metrics.rouge_l: evaluate.load("<this folder>") works offline.

ROUGE-L (beta 1.2) exactly as pycocoevalcap.
"""

import evaluate

from metrics.evaluate_modules.info import captions, metric_info
from metrics.rouge import rouge_l

DESCRIPTION = "ROUGE-L (beta 1.2) exactly as pycocoevalcap."


class RougeL(evaluate.Metric):
    """ROUGE-L (beta 1.2) exactly as pycocoevalcap."""

    def _info(self):
        return metric_info(DESCRIPTION, *captions())

    def _compute(self, predictions, references, tokenize=True):
        return {"rouge_l": rouge_l(list(predictions), [list(r) for r in references], tokenize=tokenize)}
