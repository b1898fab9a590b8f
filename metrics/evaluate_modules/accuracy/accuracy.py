"""`evaluate` module of the metric `accuracy` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Accuracy = metric_class("accuracy")
