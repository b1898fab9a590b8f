"""Local `evaluate` modules, one folder per metric: evaluate.load("metrics/evaluate_modules/<name>")."""
