"""`evaluate` module of the metric `ciou` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Ciou = metric_class("ciou")
