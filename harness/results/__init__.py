"""Results: writing the results and samples files (atomically, schema-checked) and lm-eval's keys in them.

`harness.results.atomic_write_text` (and the other names of the former `harness/results.py`) keep working.
"""

from harness.moved import reexport_lazily

__getattr__ = reexport_lazily("harness.results", "harness.results.writer")
