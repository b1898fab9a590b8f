"""The `evaluate` module folder of the metric `jaccard` (metrics/table.py)."""
