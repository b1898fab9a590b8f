"""Local evaluate module folder for metrics.flip_rates (a package so that it ships with the wheel)."""
