"""`evaluate` module of the metric `giou_boxes` (metrics/table.py), written by `python -m harness_metrics.evaluate_modules`."""

from harness_metrics.evaluate_modules.module import metric_class

GiouBoxes = metric_class("giou_boxes")
