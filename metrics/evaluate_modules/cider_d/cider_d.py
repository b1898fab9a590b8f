"""`evaluate` module of the metric `cider_d` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

CiderD = metric_class("cider_d")
