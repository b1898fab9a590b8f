"""Local evaluate module folder for metrics.j_and_f (a package so that it ships with the wheel)."""
