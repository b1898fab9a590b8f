"""`evaluate` module of the metric `precision_recall_f1` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

PrecisionRecallF1 = metric_class("precision_recall_f1")
