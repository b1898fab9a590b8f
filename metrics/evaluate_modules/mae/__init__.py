"""The `evaluate` module folder of the metric `mae` (metrics/table.py)."""
