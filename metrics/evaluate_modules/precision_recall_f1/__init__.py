"""The `evaluate` module folder of the metric `precision_recall_f1` (metrics/table.py)."""
