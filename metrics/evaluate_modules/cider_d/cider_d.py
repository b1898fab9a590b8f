"""`evaluate` module for metrics.cider_d: evaluate.load("<this folder>") works offline.

CIDEr-D (sigma 6, x10, df over the evaluated corpus) exactly as pycocoevalcap.
"""

import evaluate

from metrics.cider import cider_d
from metrics.evaluate_modules.info import captions, metric_info

DESCRIPTION = "CIDEr-D (sigma 6, x10, df over the evaluated corpus) exactly as pycocoevalcap."


class CiderD(evaluate.Metric):
    """CIDEr-D (sigma 6, x10, df over the evaluated corpus) exactly as pycocoevalcap."""

    def _info(self):
        return metric_info(DESCRIPTION, *captions())

    def _compute(self, predictions, references, tokenize=True):
        return {"cider_d": cider_d(list(predictions), [list(r) for r in references], tokenize=tokenize)}
