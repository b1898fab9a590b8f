"""The `evaluate` module folder of the metric `cider_d` (metrics/table.py)."""
