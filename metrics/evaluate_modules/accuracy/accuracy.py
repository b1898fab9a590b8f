"""`evaluate` module of the metric `accuracy` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Accuracy = metric_class("accuracy")
