"""`evaluate` module of the metric `j_and_f` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

JAndF = metric_class("j_and_f")
