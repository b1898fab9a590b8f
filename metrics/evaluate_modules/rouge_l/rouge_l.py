"""`evaluate` module of the metric `rouge_l` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

RougeL = metric_class("rouge_l")
