"""`evaluate` module of the metric `giou` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Giou = metric_class("giou")
