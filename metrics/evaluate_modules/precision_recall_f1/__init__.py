"""Local evaluate module folder for metrics.precision_recall_f1 (a package so that it ships with the wheel)."""
