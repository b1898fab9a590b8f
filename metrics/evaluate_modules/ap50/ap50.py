"""`evaluate` module of the metric `ap50` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Ap50 = metric_class("ap50")
