"""`evaluate` module of the metric `bertscore` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Bertscore = metric_class("bertscore")
