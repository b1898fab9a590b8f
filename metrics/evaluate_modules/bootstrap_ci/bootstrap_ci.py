"""`evaluate` module of the metric `bootstrap_ci` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

BootstrapCi = metric_class("bootstrap_ci")
