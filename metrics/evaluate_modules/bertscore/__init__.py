"""The `evaluate` module folder of the metric `bertscore` (metrics/table.py)."""
