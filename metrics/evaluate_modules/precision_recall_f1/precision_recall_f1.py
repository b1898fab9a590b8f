"""`evaluate` module of the metric `precision_recall_f1` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

PrecisionRecallF1 = metric_class("precision_recall_f1")
