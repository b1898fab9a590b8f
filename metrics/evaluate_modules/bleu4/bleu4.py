"""`evaluate` module of the metric `bleu4` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Bleu4 = metric_class("bleu4")
