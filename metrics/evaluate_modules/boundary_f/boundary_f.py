"""`evaluate` module of the metric `boundary_f` (metrics/table.py), written by `python -m metrics.evaluate_modules`."""

from metrics.evaluate_modules.module import metric_class

BoundaryF = metric_class("boundary_f")
