"""`evaluate` module of the metric `ap50` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Ap50 = metric_class("ap50")
