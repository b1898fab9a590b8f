"""`evaluate` module of the metric `mae` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Mae = metric_class("mae")
