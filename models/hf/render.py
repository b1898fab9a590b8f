"""Render conversations with the checkpoint's own chat template while keeping media where the task put them.

Published LLaVA templates (OneVision, NeXT-Video) render all images of a turn first, then all videos, then
the texts: a labelled clip ("Clip B: " + video) would lose its label. So each media entry is replaced by
the exact text the template itself writes for one such entry (found once by rendering a probe turn), the
turn's pieces are joined in order into one text entry, and the processor expands the placeholders. For a
single video followed by the question this is byte for byte what the template renders on its own.
"""

from __future__ import annotations

from typing import Any

_MARK = "\x00harness-probe\x00"


def _render(processor: Any, content: list[dict[str, Any]]) -> str:
    return processor.apply_chat_template(
        [{"role": "user", "content": content}], tokenize=False, add_generation_prompt=False
    )


def _inserted(base: str, longer: str) -> str:
    """The substring `longer` has in place of nothing in `base` (one insertion)."""
    start = 0
    while start < len(base) and base[start] == longer[start]:
        start += 1
    end = 0
    while end < len(base) - start and base[len(base) - 1 - end] == longer[len(longer) - 1 - end]:
        end += 1
    return longer[start : len(longer) - end]


def media_strings(processor: Any) -> dict[str, str]:
    """What the chat template writes for one video and for one image entry."""
    base = _render(processor, [{"type": "text", "text": _MARK}])
    out = {}
    for kind in ("video", "image"):
        out[kind] = _inserted(base, _render(processor, [{"type": kind}, {"type": "text", "text": _MARK}]))
    return out


def flatten(messages: list[dict[str, Any]], strings: dict[str, str]) -> tuple[list[dict], list, list]:
    """(text-only messages, videos in order, images in order) for the processor."""
    out, videos, images = [], [], []
    for message in messages:
        pieces = []
        for entry in message["content"]:
            kind = entry["type"]
            if kind == "text":
                pieces.append(entry["text"])
            elif kind == "video":
                pieces.append(strings["video"])
                videos.append(entry["video"])
            elif kind == "image":
                pieces.append(strings["image"])
                images.append(entry["image"])
        out.append({"role": message["role"], "content": [{"type": "text", "text": "".join(pieces)}]})
    return out, videos, images


def insert_after_videos(messages: list[dict[str, Any]], texts: list[Any]) -> list[dict[str, Any]]:
    """Put texts[i] (when not None) right after the i-th video entry."""
    it = iter(texts)
    out = []
    for message in messages:
        content = []
        for entry in message["content"]:
            content.append(entry)
            if entry["type"] == "video":
                text = next(it, None)
                if text:
                    content.append({"type": "text", "text": text})
        out.append({**message, "content": content})
    return out
