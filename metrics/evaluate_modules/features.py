"""The `evaluate` input columns of a metrics/table.py row, as `datasets` features."""

from __future__ import annotations

from typing import Any

import datasets


def rle() -> dict[str, Any]:
    """One mask as COCO RLE: {"size": [h, w], "counts": str}."""
    return {"size": datasets.Sequence(datasets.Value("int64")), "counts": datasets.Value("string")}


def column(spec: str) -> Any:
    """The feature of one column spec: "string", "int64", "float64", "rle", or "[x]" (a list of x).

    A list of values is a `datasets.Sequence`; a list of RLE dicts stays a plain list, so every row keeps
    its per-frame dicts.
    """
    spec = spec.strip()
    if spec.startswith("[") and spec.endswith("]"):
        item = column(spec[1:-1])
        return [item] if isinstance(item, dict) else datasets.Sequence(item)
    if spec == "rle":
        return rle()
    if spec in ("string", "int64", "float64"):
        return datasets.Value(spec)
    raise ValueError(
        f"metrics/table.py: unknown column type {spec!r}; expected string, int64, float64, rle or [x]"
    )


def features(predictions: str, references: str) -> datasets.Features | list[datasets.Features]:
    """The Features of the two columns; alternatives ("a | b") pair up by position into a list of Features."""
    pairs = list(zip(predictions.split("|"), references.split("|"), strict=True))
    typed = [datasets.Features({"predictions": column(p), "references": column(r)}) for p, r in pairs]
    return typed[0] if len(typed) == 1 else typed
