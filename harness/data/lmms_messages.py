"""lmms-eval's per-model settings and its chat messages, as lmms-eval 0.7.3 reads them (`api/task.py`).

- `for_model(table, names)`: `lmms_eval_specific_kwargs` for the run's model: the entry of the first of the
  model's names the table has, else the table with its `default` entries merged in (else its `dataset`
  entries), as `ConfigurableTask._prepare_model_specific_config` does.
- `messages_from_lmms(...)`: what `doc_to_messages` returns (`[{"role", "content": [{"type", "text" | "url"}]}]`,
  content items of type text, image, video; a video url may be a path or a dict with `video_start` /
  `video_end` in seconds) as the harness's chat messages.
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

from harness.errors import DataError

IMAGE_EXTS = {".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tiff", ".webp"}
AUDIO_EXTS = {".wav", ".mp3", ".flac", ".m4a", ".ogg", ".opus"}


def for_model(table: Optional[dict], names: Sequence[str]) -> Optional[dict]:
    """lmms_eval_specific_kwargs as lmms-eval resolves them for a model called `names[0]` (or any of `names`)."""
    if table is None:
        return None
    resolved = copy.deepcopy(table)
    for name in names:
        if name in resolved:
            return resolved[name]
    for fallback in ("default", "dataset"):
        if fallback in resolved:
            resolved.update(resolved.get(fallback) or {})
            return resolved
    return resolved


def entry_for_model(table: Optional[dict], names: Sequence[str], fallback: Any) -> Any:
    """`model_specific_target_kwargs` / `model_specific_generation_kwargs`: the model's entry, else `default`."""
    if table is None:
        return fallback
    for name in names:
        if name in table:
            return table[name]
    return table.get("default", fallback)


@functools.cache
def takes_specific_kwargs(fn: Callable) -> bool:
    """Whether lmms-eval passes `lmms_eval_specific_kwargs=` to `doc_to_messages`: read from the function's
    declared parameters, as lmms-eval decides, once per function (not per sample)."""
    params = inspect.signature(fn).parameters
    var_kw = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())
    return "lmms_eval_specific_kwargs" in params or var_kw or len(params) == 2


@functools.cache
def parameter_count(fn: Callable) -> int:
    """How many parameters an lmms-eval task function declares (`doc_to_visual(doc[, kwargs])`), read once."""
    return len(inspect.signature(fn).parameters)


def call_with_kwargs(fn: Callable, doc: dict, kwargs: Optional[dict]) -> Any:
    """`doc_to_messages(doc[, lmms_eval_specific_kwargs=...])` as lmms-eval calls it."""
    if kwargs is not None and takes_specific_kwargs(fn):
        return fn(doc, lmms_eval_specific_kwargs=kwargs)
    return fn(doc)


def visual_kind(visual: Any) -> str:
    """lmms-eval's `_visual_to_content` type of one visual: image, audio or video."""
    if hasattr(visual, "convert"):
        return "image"
    if isinstance(visual, dict):
        return str(visual.get("type", "video"))
    if isinstance(visual, (str, Path)):
        ext = Path(str(visual)).suffix.lower()
        return "image" if ext in IMAGE_EXTS else "audio" if ext in AUDIO_EXTS else "video"
    return type(visual).__name__


def video_clip(visual: dict) -> tuple[str, Optional[tuple[float, float]]]:
    """(path, (start, end) seconds or None) of a video given as lmms-eval's dict."""
    path = visual.get("path") or visual.get("url") or visual.get("video_path")
    if isinstance(path, dict):
        path = path.get("path") or path.get("url")
    if not isinstance(path, str):
        raise DataError(f"a video visual {visual!r} names no path (expected 'path' or 'url')")
    start, end = visual.get("video_start"), visual.get("video_end")
    if start is None and end is None:
        return path, None
    return path, (float(start or 0.0), float(end) if end is not None else float("inf"))


def turns(raw: Any, what: str) -> list[tuple[str, list[tuple[str, Any]]]]:
    """(role, [(type, value), ...]) of each message doc_to_messages returned (a plain string content is one
    text item); DataError naming `what` for anything else."""
    if not isinstance(raw, list):
        raise DataError(f"{what}: doc_to_messages returned {type(raw).__name__}; expected a list of messages")
    out = []
    for message in raw:
        content = message.get("content") if isinstance(message, dict) and "role" in message else None
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list) or not all(isinstance(c, dict) and "type" in c for c in content):
            raise DataError(f"{what}: doc_to_messages gave {message!r}; expected {{'role', 'content': [items]}}")
        items = [(c["type"], c.get("text") if c["type"] == "text" else c.get("url", c.get(c["type"]))) for c in content]
        out.append((str(message["role"]), items))
    return out
