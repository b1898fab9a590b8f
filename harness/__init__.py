"""A plugin-based evaluation harness for video language models.

`harness.evaluate(...)` runs an evaluation from Python (harness/evaluation.py); plugin authors import from
`harness.api`.
"""

__version__ = "0.1.0"
