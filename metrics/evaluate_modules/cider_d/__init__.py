"""Local evaluate module folder for metrics.cider_d (a package so that it ships with the wheel)."""
