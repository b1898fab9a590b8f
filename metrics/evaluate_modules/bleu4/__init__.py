"""The `evaluate` module folder of the metric `bleu4` (metrics/table.py)."""
