"""Local `evaluate` modules, one folder per metrics/table.py row: evaluate.load("metrics/evaluate_modules/<name>").

The folders' scripts are written from the table (`python -m harness_metrics.evaluate_modules`); the class each one
builds lives in module.py, how rows reach the function in calls.py, the input columns in features.py.
"""
