"""Local evaluate module folder for metrics.giou (a package so that it ships with the wheel)."""
