"""The `evaluate` module folder of the metric `ap50` (metrics/table.py)."""
