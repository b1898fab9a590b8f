"""`evaluate` module of the metric `ciou` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Ciou = metric_class("ciou")
