"""JSON-encoded rows for the `evaluate` modules whose inputs are not one prediction and one reference.

evaluate hands a metric one value per row and column; scored detections per image or one choice per
candidate order are passed as a JSON string per row. Decoding errors name the row and the column.
"""

from __future__ import annotations

import json
from typing import Any


def decode_row(text: Any, column: str, row: int, expected: type, shape: str) -> Any:
    """The JSON value of one row's cell, checked to be of `expected` type (`shape` describes it)."""
    where = f"{column}[{row}]"
    if not isinstance(text, str):
        raise ValueError(f"{where}: expected a JSON string holding {shape}, got {type(text).__name__}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: not valid JSON ({err}); expected {shape}") from err
    if not isinstance(value, expected):
        raise ValueError(f"{where}: expected {shape}, got JSON {type(value).__name__}")
    return value
