"""`evaluate` module of the metric `pass_at_k` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

PassAtK = metric_class("pass_at_k")
