"""Local evaluate module folder for metrics.bertscore (a package so that it ships with the wheel)."""
