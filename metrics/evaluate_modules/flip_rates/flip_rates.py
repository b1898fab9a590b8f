"""`evaluate` module of the metric `flip_rates` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

FlipRates = metric_class("flip_rates")
