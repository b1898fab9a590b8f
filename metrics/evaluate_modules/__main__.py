"""`python -m harness_metrics.evaluate_modules`: write the `evaluate` module folders of metrics/table.py's rows."""

from __future__ import annotations

from harness_metrics.evaluate_modules.files import stale, write

if __name__ == "__main__":
    for path in write():
        print(f"wrote {path}")
    for problem in stale():
        print(problem)
