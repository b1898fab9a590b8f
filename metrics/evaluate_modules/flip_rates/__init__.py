"""The `evaluate` module folder of the metric `flip_rates` (metrics/table.py)."""
