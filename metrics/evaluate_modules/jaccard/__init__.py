"""Local evaluate module folder for metrics.jaccard (a package so that it ships with the wheel)."""
