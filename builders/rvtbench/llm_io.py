"""Asking a registered language model for JSON (object selection, queries) and reading its answer.

The model is any harness Model (`--query-model NAME`, resolved through the registry); requests are plain
text. Replies are parsed as the first JSON value in the text; a reply that does not parse is reported to
the caller as None (the builder then falls back to the rules or templates and counts the fallback).
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness.api import Message, Request, TextPart

GENERATION = {
    "max_new_tokens": 512,
    "temperature": 0.7,
    "top_p": 0.95,
}  # paper Sec. 3: 4o at T=0.7, top-p 0.95


def ask_json(model: Any, prompt: str, doc_id: str) -> Any:
    """One text request to `model`; the first JSON object or array of its reply, or None."""
    request = Request(
        [Message("user", [TextPart(prompt)])], dict(GENERATION), None, "rvtbench_build", doc_id, {}
    )
    (response,) = model.generate([request])
    return first_json(response.text or "")


def first_json(text: str) -> Any:
    """The first decodable JSON object/array in `text` (code fences allowed), or None."""
    text = re.sub(r"```(?:json)?", "", text)
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "[{":
            try:
                value, _ = decoder.raw_decode(text[i:])
            except json.JSONDecodeError:
                continue
            return value
    return None


def dt_digest(sampled: dict, limit: int = 12) -> str:
    """A compact text view of J_sampled for prompts: video description, then per sampled frame the
    instance descriptions with depth means and the spatial description."""
    lines = [f"Video: {sampled['metadata']['description']}"]
    for f in sampled["frames"][:limit]:
        inst = "; ".join(
            f"#{i}: {x['description']} (depth {x['depth_stats'][0]:.0f})"
            for i, x in sorted(f["instances"].items())
        )
        lines.append(f"Frame {f['timestamp']}: {inst}. {f['spatial_description']}")
    return "\n".join(lines)
