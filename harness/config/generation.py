"""Generation kwargs (a task's `generation:`, lmms-eval's `generation_kwargs`, `--gen_kwargs`) checked before any
model call: values JSON can carry (a NaN or an infinity becomes a body no server accepts), and the keys every
adapter reads in range, so a typo'd `max_new_tokens: 1e12` or `temperature: -1` is one line naming it, not a
run whose every request fails."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Optional

from harness.errors import ConfigError

#: the most tokens a task or the command line may ask one answer for
MAX_NEW_TOKENS = 1_000_000
_DEPTH = 8  # nesting a generation value may have (lists of stop strings, ...)


def _bad_value(value: Any, depth: int = 0) -> Optional[str]:
    """Why `value` cannot go into a request body, or None."""
    if depth > _DEPTH:
        return f"nested deeper than {_DEPTH}"
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    if isinstance(value, Mapping):
        return next((w for w in (_bad_value(v, depth + 1) for v in value.values()) if w), None)
    if isinstance(value, (list, tuple)):
        return next((w for w in (_bad_value(v, depth + 1) for v in value) if w), None)
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    return f"a {type(value).__name__}, not a JSON value"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def generation_problem(gen: Mapping[str, Any]) -> Optional[str]:
    """"KEY=VALUE: why" for the first generation kwarg no request can carry or no model can honour, or None."""
    for key, value in gen.items():
        why = _bad_value(value)
        if why is None and key == "max_new_tokens" and value is not None:
            whole = _number(value) and float(value).is_integer()
            if not whole or not 1 <= value <= MAX_NEW_TOKENS:
                why = f"must be a whole number between 1 and {MAX_NEW_TOKENS}"
        elif why is None and key == "temperature" and value is not None and not (_number(value) and value >= 0):
            why = "must be a number of at least 0"
        elif why is None and key == "top_p" and value is not None and not (_number(value) and 0 <= value <= 1):
            why = "must be a number between 0 and 1"  # 0: greedy, as 14 lmms-eval task YAMLs write it
        if why is not None:
            return f"{key}={value!r}: {why}"
    return None


def check_generation(gen: Mapping[str, Any], where: str) -> dict[str, Any]:
    """`gen` as a dict, or ConfigError "WHERE KEY=VALUE: why" (exit 2)."""
    problem = generation_problem(gen)
    if problem is not None:
        raise ConfigError(f"{where} {problem}")
    return dict(gen)
