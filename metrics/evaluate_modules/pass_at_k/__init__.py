"""Local evaluate module folder for metrics.pass_at_k (a package so that it ships with the wheel)."""
