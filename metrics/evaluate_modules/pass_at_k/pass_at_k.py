"""`evaluate` module of the metric `pass_at_k` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

PassAtK = metric_class("pass_at_k")
