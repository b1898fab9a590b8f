"""`evaluate` module for metrics.bootstrap_ci: evaluate.load("<this folder>") works offline.

Percentile bootstrap interval of the mean of per-item values, resampling clusters (videos); one example =
one item: its value and its cluster id (see the description below).
"""

import datasets
import evaluate
import numpy as np

from metrics.bootstrap import bootstrap_ci

_DESCRIPTION = (
    "Percentile bootstrap confidence interval (numpy percentile, linear) of the mean of per-item values "
    "(or of compute(statistic=callable)). One example = one item. predictions: the item's value (a float, "
    "e.g. 1.0 / 0.0 for right / wrong; NaN is rejected). references: the item's cluster id as a string "
    "(e.g. its video): whole clusters are drawn with replacement. Pass clustered=False to draw items "
    "independently (references are then ignored). compute() also takes n_resamples (1000), confidence "
    "(0.95) and seed (0). Returns {'estimate': statistic of all values, 'low', 'high'}."
)


class BootstrapCI(evaluate.Metric):
    """Clustered percentile bootstrap over items given as (value, cluster id) rows."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {"predictions": datasets.Value("float64"), "references": datasets.Value("string")}
            ),
        )

    def _compute(
        self,
        predictions,
        references,
        n_resamples=1000,
        confidence=0.95,
        seed=0,
        statistic=None,
        clustered=True,
    ):
        values = np.asarray(predictions, dtype=float)
        low, high = bootstrap_ci(
            values,
            clusters=list(references) if clustered else None,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            statistic=statistic,
        )
        if values.size == 0:
            estimate = float("nan")
        else:
            estimate = float(statistic(values)) if statistic is not None else float(values.mean())
        return {"estimate": estimate, "low": low, "high": high}
