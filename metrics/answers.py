"""Answer-level scores with an explicit `INDEFINITE` marker (CycliST's rule).

A model answer the judge cannot map to any value is tagged indefinite: it counts as wrong in accuracy and
is left out of the mean absolute error (CycliST, Sec. 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class _Indefinite:
    """Singleton marking an indefinite answer; compares equal only to itself."""

    _instance: _Indefinite | None = None

    def __new__(cls) -> _Indefinite:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "INDEFINITE"

    def __reduce__(self) -> str:
        return "INDEFINITE"


INDEFINITE = _Indefinite()


def is_indefinite(value: Any) -> bool:
    """True for the INDEFINITE marker (and for the string "indefinite", as stored in JSON sample logs)."""
    return value is INDEFINITE or (isinstance(value, str) and value.strip().lower() == "indefinite")


def _paired(predictions: Sequence[Any], references: Sequence[Any], name: str) -> None:
    for label, seq in (("predictions", predictions), ("references", references)):
        if isinstance(seq, str) or not isinstance(seq, (Sequence, np.ndarray)):
            raise ValueError(
                f"{name}: {label} must be a list (one entry per sample), got {type(seq).__name__}"
            )
    if len(predictions) != len(references):
        raise ValueError(
            f"{name}: got {len(predictions)} predictions and {len(references)} references; expected equal lengths"
        )


def accuracy(predictions: Sequence[Any], references: Sequence[Any]) -> float:
    """Fraction of predictions equal to their reference; INDEFINITE counts as wrong. nan for no samples."""
    _paired(predictions, references, "accuracy")
    if len(predictions) == 0:
        return float("nan")
    correct = sum(1 for p, r in zip(predictions, references, strict=False) if not is_indefinite(p) and p == r)
    return correct / len(predictions)


def mae(predictions: Sequence[Any], references: Sequence[Any]) -> float:
    """Mean absolute error over numeric predictions, leaving INDEFINITE ones out; nan if none remain."""
    _paired(predictions, references, "mae")
    errors = []
    for i, (p, r) in enumerate(zip(predictions, references, strict=False)):
        if is_indefinite(p):
            continue
        try:
            errors.append(abs(float(p) - float(r)))
        except (TypeError, ValueError):
            raise ValueError(
                f"mae: sample {i} has a non-numeric prediction {p!r} or reference {r!r}; "
                "map unparsable answers to metrics.INDEFINITE"
            ) from None
    return float(np.mean(errors)) if errors else float("nan")
