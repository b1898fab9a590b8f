"""Local evaluate module folder for metrics.mae (a package so that it ships with the wheel)."""
