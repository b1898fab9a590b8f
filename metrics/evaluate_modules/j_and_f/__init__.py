"""The `evaluate` module folder of the metric `j_and_f` (metrics/table.py)."""
