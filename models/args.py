"""Typed reading of `--model_args` values, which arrive from the command line as strings.

Adapters accept both real Python values (from code or YAML) and their string forms ("true", "80", "none"),
and every error names the argument and the model so a user knows which flag to fix: a ModelArgsError (a
ConfigError, exit 2 on the command line, and a ValueError for code that catches that).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from harness.api import ModelArgsError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_NONE = {"", "none", "null"}


def as_bool(value: Any, name: str, model: str) -> bool:
    """A boolean model arg from a bool or a string such as "true"/"0"."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ModelArgsError(f"model '{model}': argument {name}={value!r} is not a boolean; use true or false")


def as_int(value: Any, name: str, model: str, minimum: Optional[int] = None) -> Optional[int]:
    """An integer model arg (None for "none"), checked against `minimum`: a whole number only (`80`, `"80"`,
    `80.0`), never a fraction, an infinity or a boolean, which int() would quietly turn into another number
    or a traceback."""
    if value is None or (isinstance(value, str) and value.strip().lower() in _NONE):
        return None
    try:
        if isinstance(value, bool):
            raise ValueError(value)
        if isinstance(value, float):
            if not value.is_integer():  # 2.5, inf and nan
                raise ValueError(value)
            value = int(value)
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ModelArgsError(f"model '{model}': argument {name}={value!r} is not a whole number") from None
    if minimum is not None and number < minimum:
        raise ModelArgsError(f"model '{model}': argument {name}={number} must be at least {minimum}")
    return number


def as_float(value: Any, name: str, model: str, minimum: Optional[float] = None) -> Optional[float]:
    """A float model arg (None for "none"), checked against `minimum`: a finite number only (a NaN deadline
    would never be reached, an infinite one never cut a request off)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in _NONE):
        return None
    try:
        if isinstance(value, bool):
            raise ValueError(value)
        number = float(value)
    except (TypeError, ValueError):
        raise ModelArgsError(f"model '{model}': argument {name}={value!r} is not a number") from None
    if not math.isfinite(number):
        raise ModelArgsError(f"model '{model}': argument {name}={value!r} is not a finite number")
    if minimum is not None and number < minimum:
        raise ModelArgsError(f"model '{model}': argument {name}={number} must be at least {minimum}")
    return number


def as_str(value: Any) -> Optional[str]:
    """A string model arg, None for "none"/empty."""
    if value is None:
        return None
    text = str(value).strip()
    return None if text.lower() in _NONE else text
