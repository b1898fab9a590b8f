"""`evaluate` module of the metric `boundary_f` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

BoundaryF = metric_class("boundary_f")
