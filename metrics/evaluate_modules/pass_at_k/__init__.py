"""The `evaluate` module folder of the metric `pass_at_k` (metrics/table.py)."""
