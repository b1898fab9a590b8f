"""The `evaluate` module folder of the metric `giou` (metrics/table.py)."""
