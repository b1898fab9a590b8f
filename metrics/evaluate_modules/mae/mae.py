"""`evaluate` module of the metric `mae` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

Mae = metric_class("mae")
