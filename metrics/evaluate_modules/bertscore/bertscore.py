"""`evaluate` module of the metric `bertscore` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Bertscore = metric_class("bertscore")
