"""Local evaluate module folder for metrics.accuracy (a package so that it ships with the wheel)."""
