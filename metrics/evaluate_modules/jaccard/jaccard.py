"""`evaluate` module of the metric `jaccard` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Jaccard = metric_class("jaccard")
