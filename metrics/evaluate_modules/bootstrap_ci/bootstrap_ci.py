"""`evaluate` module of the metric `bootstrap_ci` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

BootstrapCi = metric_class("bootstrap_ci")
