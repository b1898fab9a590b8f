"""`evaluate` module of the metric `bleu4` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

Bleu4 = metric_class("bleu4")
