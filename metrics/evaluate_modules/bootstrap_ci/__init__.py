"""The `evaluate` module folder of the metric `bootstrap_ci` (metrics/table.py)."""
