"""`evaluate` module of the metric `flip_rates` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

FlipRates = metric_class("flip_rates")
