"""Local evaluate module folder for metrics.bleu4 (a package so that it ships with the wheel)."""
