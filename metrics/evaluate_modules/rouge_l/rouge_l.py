"""`evaluate` module of the metric `rouge_l` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

RougeL = metric_class("rouge_l")
