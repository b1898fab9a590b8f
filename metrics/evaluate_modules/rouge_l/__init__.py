"""The `evaluate` module folder of the metric `rouge_l` (metrics/table.py)."""
