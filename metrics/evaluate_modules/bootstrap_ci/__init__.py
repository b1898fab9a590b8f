"""Local evaluate module folder for metrics.bootstrap_ci (a package so that it ships with the wheel)."""
