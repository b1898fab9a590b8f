"""Local evaluate module folder for metrics.rouge_l (a package so that it ships with the wheel)."""
