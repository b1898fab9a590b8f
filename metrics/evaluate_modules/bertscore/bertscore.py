"""`evaluate` module for metrics.bertscore: evaluate.load("<this folder>") works offline.

BERTScore via bert-score with a local model (model_path, num_layers).
"""

import evaluate

from metrics.bertscore import bertscore
from metrics.evaluate_modules.info import captions, metric_info

DESCRIPTION = "BERTScore via bert-score with a local model (model_path, num_layers)."


class BertScore(evaluate.Metric):
    """BERTScore via bert-score with a local model (model_path, num_layers)."""

    def _info(self):
        return metric_info(DESCRIPTION, *captions())

    def _compute(self, predictions, references, model_path=None, num_layers=None, batch_size=64, device=None):
        return bertscore(
            list(predictions),
            [list(r) for r in references],
            model_path=model_path,
            num_layers=num_layers,
            batch_size=batch_size,
            device=device,
        )
