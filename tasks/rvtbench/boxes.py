"""Parsing grounding answers: structured boxes from box-producing models, or labelled JSON from text models.

Text format (stated in the prompt): {"coordinates": "pixel" | "normalized", "boxes": [{"frame": F,
"bbox_xyxy": [x1, y1, x2, y2]} or {"frame": F, "bbox_xywh": [x, y, w, h]}, ...]}. "coordinates" defaults to
"pixel". An unlabelled box, a frame not asked for, a non-number, x2 < x1, or a normalised value outside
[0, 1] rejects the whole answer (scored as an empty prediction; the reason is logged). Output: pixel
[x, y, w, h] boxes, a list per requested frame.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np


class BoxFormatError(ValueError):
    """A grounding answer that does not follow the stated format."""


def first_json(text: str) -> Any:
    """The first JSON object in the text (code fences allowed), else BoxFormatError."""
    text = re.sub(r"```(?:json)?", "", text or "")
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch == "{":
            try:
                return decoder.raw_decode(text[i:])[0]
            except json.JSONDecodeError:
                continue
    raise BoxFormatError("no JSON object in the reply")


def _numbers(values: Any, label: str) -> list[float]:
    if not (
        isinstance(values, list)
        and len(values) == 4
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    ):
        raise BoxFormatError(f"{label} must be 4 numbers, got {values!r}")
    if not all(math.isfinite(v) for v in values):
        raise BoxFormatError(f"{label} has non-finite values")
    return [float(v) for v in values]


def parse_text_boxes(text: str, frames: list[int], width: int, height: int) -> list[list[list[float]]]:
    """Pixel [x, y, w, h] boxes per requested frame from a text reply (module docstring)."""
    data = first_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("boxes"), list):
        raise BoxFormatError('expected {"coordinates": ..., "boxes": [...]}')
    coords = str(data.get("coordinates", "pixel")).lower()
    if coords not in ("pixel", "normalized", "normalised"):
        raise BoxFormatError(f"coordinates {coords!r}; expected 'pixel' or 'normalized'")
    sx, sy = (width, height) if coords != "pixel" else (1.0, 1.0)
    out: dict[int, list[list[float]]] = {t: [] for t in frames}
    for k, item in enumerate(data["boxes"]):
        if not isinstance(item, dict) or not isinstance(item.get("frame"), int) or item["frame"] not in out:
            raise BoxFormatError(f"boxes[{k}]: needs an integer 'frame' among {frames}")
        labelled = [key for key in ("bbox_xyxy", "bbox_xywh") if key in item]
        if len(labelled) != 1:
            raise BoxFormatError(
                f"boxes[{k}]: needs exactly one of bbox_xyxy or bbox_xywh (unlabelled boxes are rejected)"
            )
        v = _numbers(item[labelled[0]], f"boxes[{k}].{labelled[0]}")
        if coords != "pixel" and not all(0.0 <= x <= 1.0 for x in v):
            raise BoxFormatError(f"boxes[{k}]: normalized coordinates must lie in [0, 1]")
        if labelled[0] == "bbox_xyxy":
            if v[2] < v[0] or v[3] < v[1]:
                raise BoxFormatError(f"boxes[{k}]: x2 < x1 or y2 < y1 in bbox_xyxy")
            v = [v[0], v[1], v[2] - v[0], v[3] - v[1]]
        elif v[2] < 0 or v[3] < 0:
            raise BoxFormatError(f"boxes[{k}]: negative width or height in bbox_xywh")
        out[item["frame"]].append([v[0] * sx, v[1] * sy, v[2] * sx, v[3] * sy])
    return [out[t] for t in frames]


def structured_boxes(structured: Any, frames: list[int]) -> list[list[list[float]]]:
    """Boxes from a box-producing model: {"boxes": [[[x, y, w, h], ...] per frame]} or {"boxes": {frame: [...]}}."""
    boxes = structured.get("boxes") if isinstance(structured, dict) else None
    if isinstance(boxes, dict):
        boxes = [boxes.get(str(t), boxes.get(t, [])) for t in frames]
    if not isinstance(boxes, list) or len(boxes) != len(frames):
        raise BoxFormatError(f"structured boxes must give one list per frame ({len(frames)} frames)")
    return [
        [
            _numbers(b, f"boxes[{k}]")
            for b in (per if per and isinstance(per[0], list) else ([per] if per else []))
        ]
        for k, per in enumerate(boxes)
    ]


def raster(boxes: list[list[list[float]]], height: int, width: int) -> np.ndarray:
    """(T, H, W) bool: the union of each frame's boxes, pixel-rounded."""
    out = np.zeros((len(boxes), height, width), dtype=bool)
    for t, per in enumerate(boxes):
        for x, y, w, h in per:  # clipped to the frame first, so a huge (finite) number cannot overflow
            x0, x1 = (int(round(min(max(v, 0.0), width))) for v in (x, x + w))
            y0, y1 = (int(round(min(max(v, 0.0), height))) for v in (y, y + h))
            out[t, y0:y1, x0:x1] = True
    return out
