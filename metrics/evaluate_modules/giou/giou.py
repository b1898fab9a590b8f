"""`evaluate` module of the metric `giou` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Giou = metric_class("giou")
