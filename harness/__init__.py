"""A plugin-based evaluation harness for video language models.

`harness.evaluate(...)` runs an evaluation from Python (harness/evaluation.py: the command line's run calls the
same code); plugin authors import from `harness.api`.
"""

import importlib
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """`harness.evaluate`, imported on first use: `import harness` stays cheap for every command."""
    if name == "evaluate":
        return importlib.import_module("harness.evaluation").evaluate
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
