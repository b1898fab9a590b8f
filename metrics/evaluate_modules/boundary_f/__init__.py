"""Local evaluate module folder for metrics.boundary_f (a package so that it ships with the wheel)."""
