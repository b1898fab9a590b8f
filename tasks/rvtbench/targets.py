"""What a usable RVTBench row is, checked at load time for builds and releases alike (issue 27).

A row that does not fit is dropped with one of these reasons (counted in the results' `dropped`, the detail
naming the file, the row and the field), never scored and never a crash:

  non_finite        a NaN or infinite number anywhere in the row (checked first, on the row as read)
  bad_value         video (not a non-empty path), task type, fps (not a number > 0), num_frames (not an
                    integer >= 1), width/height (not integers >= 1), id (not a string or number)
  bad_level         level outside 1-4 / L1-L4
  unknown_category  a reasoning category outside semantic, spatial, temporal (or none)
  bad_target        the ground truth cannot be right: evaluation frames not integers in [0, num_frames), a
                    null, undecodable or wrong-size mask, a box that is not [x, y, w, h] with w, h >= 0, an
                    object shown on no evaluation frame, a VQA or summary answer that is not text, a build's
                    VQA answer without its canonical answer or with an unknown kind
"""

from __future__ import annotations

import math
from typing import Any, Optional

from harness_metrics import decode_rle

TASK_TYPES = ("segmentation", "grounding", "vqa", "summary")
CATEGORIES = ("semantic", "spatial", "temporal")
LEVELS = (1, 2, 3, 4)


class RowProblem(ValueError):
    """A row that cannot be a sample: `reason` is the counted tag, the message names the field."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def non_finite_path(value: Any, path: str = "") -> Optional[str]:
    """Where the first NaN or infinite number of a parsed JSON value is (e.g. 'answer.boxes[1][0][2]')."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path or "(the row)")
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((p for key, v in items if (p := non_finite_path(v, key)) is not None), None)


def check_finite(row: Any) -> None:
    """RowProblem(non_finite) naming the first non-finite number in the row."""
    where = non_finite_path(row)
    if where is not None:
        raise RowProblem("non_finite", f"{where} is not a finite number")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def level(value: Any) -> int:
    """1-4 from 1-4 or 'L1'-'L4' (RowProblem bad_level otherwise)."""
    text = str(value).strip().upper()
    ok = (_is_int(value) or isinstance(value, str)) and text.removeprefix("L").isdigit()
    if not ok or int(text.removeprefix("L")) not in LEVELS:
        raise RowProblem("bad_level", f"level {value!r}; expected 1-4 or L1-L4")
    return int(text.removeprefix("L"))


def categories(value: Any) -> list[str]:
    """The sorted category set from a list or 'a+b' / 'a,b' (RowProblem unknown_category otherwise)."""
    if isinstance(value, (list, tuple)):
        items = list(value)
    elif isinstance(value, str):
        items = value.replace(",", "+").split("+")
    else:
        items = [value]
    cats = sorted({str(c).strip().lower() for c in items if str(c).strip()})
    if not cats or not all(isinstance(c, str) for c in items) or any(c not in CATEGORIES for c in cats):
        raise RowProblem(
            "unknown_category", f"categories {value!r}; expected a subset of {', '.join(CATEGORIES)}"
        )
    return cats


def video_path(value: Any) -> str:
    """The row's video path: a non-empty string (RowProblem bad_value otherwise)."""
    if not isinstance(value, str) or not value.strip():
        raise RowProblem("bad_value", f"video {value!r}; expected a path relative to the dataset folder")
    return value


def task_type(value: Any) -> str:
    if value not in TASK_TYPES:
        raise RowProblem("bad_value", f"task type {value!r}; expected one of {', '.join(TASK_TYPES)}")
    return value


def positive(value: Any, name: str, integer: bool) -> Optional[float]:
    """An optional fps (number > 0) or num_frames / width / height (integer >= 1); None when absent."""
    if value is None:
        return None
    ok = (_is_int(value) if integer else _is_number(value)) and value > 0
    if not ok:
        kind = "an integer >= 1" if integer else "a number > 0"
        raise RowProblem("bad_value", f"{name} {value!r}; expected {kind}")
    return value


def check_frames(frames: Any, num_frames: Optional[int]) -> list[int]:
    """Evaluation frames: distinct integers inside the video (RowProblem bad_target otherwise)."""
    if not isinstance(frames, list) or not frames or not all(_is_int(t) for t in frames):
        raise RowProblem("bad_target", f"answer frames {frames!r}; expected a list of frame numbers")
    if len(set(frames)) != len(frames):
        raise RowProblem("bad_target", f"answer frames {frames!r} repeat a frame")
    bad = [t for t in frames if t < 0 or (num_frames is not None and t >= num_frames)]
    if bad:
        end = f"0..{num_frames - 1}" if num_frames is not None else ">= 0"
        raise RowProblem("bad_target", f"answer frame {bad[0]} is outside the video (frames {end})")
    return frames


def check_masks(masks: Any, frames: list[int], size: Optional[tuple[int, int]]) -> None:
    """One decodable COCO RLE per frame, each of the video's size, the object on at least one frame."""
    if not isinstance(masks, list) or len(masks) != len(frames):
        raise RowProblem("bad_target", f"answer masks: expected one RLE per frame ({len(frames)} frames)")
    shown = False
    for t, rle in zip(frames, masks, strict=True):
        if rle is None:
            raise RowProblem("bad_target", f"frame {t}: the mask is null")
        try:
            mask = decode_rle(rle)[0]
        except (ValueError, TypeError, KeyError, OverflowError) as err:
            raise RowProblem("bad_target", f"frame {t}: the mask cannot be decoded ({err})") from None
        if size is not None and mask.shape != tuple(size):
            raise RowProblem(
                "bad_target",
                f"frame {t}: the mask is {mask.shape[1]}x{mask.shape[0]}, the video {size[1]}x{size[0]}",
            )
        shown = shown or bool(mask.any())
    if not shown:
        raise RowProblem("bad_target", "the object is on no evaluation frame (every mask is empty)")


def check_boxes(boxes: Any, frames: list[int]) -> None:
    """Per frame a list of [x, y, w, h] boxes (w, h >= 0), at least one box on some frame."""
    if not isinstance(boxes, list) or len(boxes) != len(frames):
        raise RowProblem(
            "bad_target", f"answer boxes: expected a list of boxes per frame ({len(frames)} frames)"
        )
    for t, per in zip(frames, boxes, strict=True):
        for b in per if isinstance(per, list) else [per]:
            if not (
                isinstance(b, list) and len(b) == 4 and all(_is_number(v) for v in b) and b[2] >= 0 <= b[3]
            ):
                raise RowProblem("bad_target", f"frame {t}: box {b!r}; expected [x, y, w, h] with w, h >= 0")
    if not any(boxes):
        raise RowProblem("bad_target", "the object is on no evaluation frame (no box on any frame)")


def check_text(answer: Any, kind_of_task: str, vocabulary: Optional[dict]) -> None:
    """A VQA / summary answer: {"text": str}; a build's VQA answer (`vocabulary` given: the manifest's answer
    vocabulary, keyed by kind) also {"canonical": str, "kind": one of the vocabulary's kinds}."""
    if not isinstance(answer, dict) or not isinstance(answer.get("text"), str) or not answer["text"].strip():
        raise RowProblem(
            "bad_target", f"{kind_of_task} answer {_short(answer)}; expected {{'text': ...}} with text"
        )
    if kind_of_task != "vqa" or vocabulary is None:
        return
    canonical, kind = answer.get("canonical"), answer.get("kind")
    if not isinstance(canonical, str) or not canonical.strip():
        raise RowProblem("bad_target", f"VQA answer without its canonical answer ({_short(answer)})")
    if vocabulary and kind not in vocabulary:
        raise RowProblem(
            "bad_target", f"VQA answer kind {kind!r}; the build's kinds are {', '.join(sorted(vocabulary))}"
        )


def check_target(row: dict, num_frames: Optional[int], vocabulary: Optional[dict] = None) -> None:
    """The row's ground truth fits its task type and its video (see the module docstring)."""
    answer, kind = row["answer"], row["task_type"]
    if kind in ("vqa", "summary"):
        check_text(answer, kind, vocabulary)
        return
    if not isinstance(answer, dict):
        raise RowProblem("bad_target", f"{kind} answer {_short(answer)}; expected {{'frames': [...], ...}}")
    frames = check_frames(answer.get("frames"), num_frames)
    if kind == "segmentation":
        size = (row["height"], row["width"]) if row.get("height") and row.get("width") else None
        check_masks(answer.get("masks"), frames, size)
    else:
        check_boxes(answer.get("boxes"), frames)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def video_size(doc: dict, target: dict) -> tuple[int, int]:
    """(height, width) of a sample's video: the row's own, else its first target mask's RLE size."""
    if doc.get("height") and doc.get("width"):
        return int(doc["height"]), int(doc["width"])
    rles = target.get("masks") or []
    if rles:
        return tuple(int(v) for v in rles[0]["size"])
    raise ValueError(f"doc {doc.get('id')}: no width/height given")
