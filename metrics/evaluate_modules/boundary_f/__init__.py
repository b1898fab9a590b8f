"""The `evaluate` module folder of the metric `boundary_f` (metrics/table.py)."""
