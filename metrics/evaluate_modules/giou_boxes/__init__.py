"""The `evaluate` module folder of the metric `giou_boxes` (metrics/table.py)."""
