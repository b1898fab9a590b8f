"""How an `evaluate` module hands its rows to its metric function: the `call` column of metrics/table.py.

Every call takes (key, function, predictions, references, **compute_kwargs) and returns compute()'s dict;
`key` is the metric's name, the result's key where the function returns one number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from harness_metrics.evaluate_modules.json_rows import decode_row

Function = Callable[..., Any]


def _plain(rows: Sequence[Any]) -> list[Any]:
    """The rows as a list, each list-valued row (a reference list, a box) as a plain list."""
    return [list(row) if isinstance(row, (list, tuple)) else row for row in rows]


def corpus(key: str, function: Function, predictions: Any, references: Any, **kwargs: Any) -> dict[str, Any]:
    """All rows at once, as the function's two lists: {key: its value}."""
    return {key: function(_plain(predictions), _plain(references), **kwargs)}


def as_returned(
    key: str, function: Function, predictions: Any, references: Any, **kwargs: Any
) -> dict[str, Any]:
    """All rows at once; the function's own dict is the result."""
    return function(_plain(predictions), _plain(references), **kwargs)


def frame_mean(key: str, function: Function, predictions: Any, references: Any) -> dict[str, float]:
    """One frame per row; the mean of the function's per-frame values."""
    return {key: float(function(list(predictions), list(references)).mean())}


def _mean_of_rows(rows: list[dict[str, Any]], keys: Sequence[str]) -> dict[str, Any]:
    """Each key's mean over per-row results ({} for no rows)."""
    return {k: sum(row[k] for row in rows) / len(rows) for k in keys} if rows else {}


def _rles(frames: Any) -> list[Any]:
    """Per-frame RLE dicts from the Arrow columns evaluate hands over."""
    if isinstance(frames, dict):
        return [{"size": s, "counts": c} for s, c in zip(frames["size"], frames["counts"], strict=False)]
    return list(frames)


def track_mean(key: str, function: Function, predictions: Any, references: Any) -> dict[str, Any]:
    """One object track per row; each statistic's mean over tracks."""
    rows = [function(_rles(p), _rles(r)) for p, r in zip(predictions, references, strict=False)]
    return _mean_of_rows(rows, list(rows[0]) if rows else [])


def set_mean(key: str, function: Function, predictions: Any, references: Any) -> dict[str, Any]:
    """One pair of sets per row; precision, recall and f1 each averaged over rows."""
    rows = [function(list(p), list(r)) for p, r in zip(predictions, references, strict=False)]
    return _mean_of_rows(rows, ("precision", "recall", "f1"))


def samples_per_problem(
    key: str, function: Function, predictions: Any, references: Any, k: int = 1
) -> dict[str, Any]:
    """One problem per row, its samples' correctness (0/1): {"pass@k": mean over problems}."""
    return {f"pass@{k}": function([len(p) for p in predictions], [int(sum(p)) for p in predictions], k)}


def _annotations(rows: Any, column: str, with_score: bool) -> list[dict[str, Any]]:
    """Flatten per-image JSON lists into annotation dicts whose image_id is the row number."""
    shape = "a list of annotation objects (" + ("with 'score'" if with_score else "ground truth") + ")"
    out = []
    for row, text in enumerate(rows):
        for i, item in enumerate(decode_row(text, column, row, list, shape)):
            if not isinstance(item, dict):
                raise ValueError(
                    f"{column}[{row}][{i}]: expected an annotation object, got {type(item).__name__}"
                )
            if "image_id" in item and item["image_id"] != row:
                raise ValueError(
                    f"{column}[{row}][{i}]: image_id {item['image_id']!r} differs from the row number {row}; "
                    "one row is one image, so leave image_id out"
                )
            out.append({**item, "image_id": row})
    return out


def json_detections(
    key: str, function: Function, predictions: Any, references: Any, iou_type: str = "bbox"
) -> dict[str, Any]:
    """One image per row, its detections and ground truth as JSON lists: {key: AP}."""
    detections = _annotations(predictions, "predictions", with_score=True)
    ground_truths = _annotations(references, "references", with_score=False)
    return {key: function(detections, ground_truths, iou_type=iou_type)}


_ORDERS = "an object mapping order names to the chosen clip (a string, or null when unparsed)"


def _choices(predictions: Any) -> dict[str, list[Any]]:
    """Rows of {order: clip} as order -> list of clips, checking every row names the same orders."""
    orders: list[str] = []
    choices: dict[str, list[Any]] = {}
    for row, text in enumerate(predictions):
        chosen = decode_row(text, "predictions", row, dict, _ORDERS)
        if row == 0:
            orders = list(chosen)
            choices = {order: [] for order in orders}
        elif set(chosen) != set(orders):
            raise ValueError(
                f"predictions[{row}]: orders {sorted(chosen)} differ from row 0's {sorted(orders)}; every item "
                "must be asked under the same candidate orders"
            )
        for order in orders:
            clip = chosen[order]
            if clip is not None and not isinstance(clip, str):
                raise ValueError(
                    f"predictions[{row}][{order!r}]: expected a clip identity string or null, got {clip!r}"
                )
            choices[order].append(clip)
    return choices


def json_orders(key: str, function: Function, predictions: Any, references: Any) -> dict[str, Any]:
    """One item per row, its choice under each candidate order as a JSON object; the function's dict."""
    if not predictions:
        raise ValueError(f"{key}: no items; expected at least one row")
    return function(_choices(predictions), list(references))


def clustered_values(
    key: str,
    function: Function,
    predictions: Any,
    references: Any,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    statistic: Callable[[np.ndarray], float] | None = None,
    clustered: bool = True,
) -> dict[str, float]:
    """One item per row, its value and its cluster id: the statistic and its bootstrap interval."""
    values = np.asarray(predictions, dtype=float)
    low, high = function(
        values,
        clusters=list(references) if clustered else None,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        statistic=statistic,
    )
    if values.size == 0:
        estimate = float("nan")
    else:
        estimate = float(statistic(values)) if statistic is not None else float(values.mean())
    return {"estimate": estimate, "low": low, "high": high}


CALLS: dict[str, Callable[..., dict[str, Any]]] = {
    call.__name__: call
    for call in (
        corpus,
        as_returned,
        frame_mean,
        track_mean,
        set_mean,
        samples_per_problem,
        json_detections,
        json_orders,
        clustered_values,
    )
}
