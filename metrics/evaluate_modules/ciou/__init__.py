"""The `evaluate` module folder of the metric `ciou` (metrics/table.py)."""
