"""Local evaluate module folder for metrics.ciou (a package so that it ships with the wheel)."""
