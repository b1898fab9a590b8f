"""The `evaluate` module folder of the metric `accuracy` (metrics/table.py)."""
