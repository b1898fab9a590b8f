"""`evaluate` module for metrics.bertscore: evaluate.load("<this folder>") works offline.

BERTScore via bert-score with a local model (model_path, num_layers).
"""

import datasets
import evaluate

from metrics.bertscore import bertscore


class BertScore(evaluate.Metric):
    """BERTScore via bert-score with a local model (model_path, num_layers)."""

    def _info(self):
        return evaluate.MetricInfo(
            description="BERTScore via bert-score with a local model (model_path, num_layers).",
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Sequence(datasets.Value("string")),
                }
            ),
        )

    def _compute(self, predictions, references, model_path=None, num_layers=None, batch_size=64, device=None):
        return bertscore(
            list(predictions),
            [list(r) for r in references],
            model_path=model_path,
            num_layers=num_layers,
            batch_size=batch_size,
            device=device,
        )
