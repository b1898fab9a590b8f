"""`evaluate` module of the metric `cider_d` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

CiderD = metric_class("cider_d")
