"""`evaluate` module of the metric `jaccard` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Jaccard = metric_class("jaccard")
