"""Local evaluate module folder for metrics.ap50 (a package so that it ships with the wheel)."""
