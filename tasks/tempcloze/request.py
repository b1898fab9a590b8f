"""Request hooks: the labelled multi-clip message, the target letter and the oracle's answer.

The message follows the public evaluation: the prompt, then "[BEGINNING]" and its frames, "[END]" and its
frames, then "[Candidate A]".."[Candidate D]" each followed by its clip. Every clip is its own VideoPart
whose label is the same bracketed text, so a one-video model still sees which frames are which.
"""

from __future__ import annotations

import json
from typing import Any

from harness.api import Message, Segment, Task, TextPart, VideoPart, VideoRef
from tasks.tempcloze.protocol import AFTER, BEFORE, LETTERS

CONTEXT_LABELS = {BEFORE: "[BEGINNING]", AFTER: "[END]"}


def clip_ref(doc: dict, name: str, label: str) -> VideoRef:
    """The VideoRef of one clip of a doc: a file, or segments of the source video (virtual items)."""
    ref = doc["clips"][name]
    segments = ref.get("segments")
    return VideoRef(
        path=ref["path"],
        segments=tuple(Segment(**s) for s in segments) if segments else None,
        label=label,
    )


def labelled_parts(doc: dict) -> list:
    """Text label + VideoPart for each shown clip, in the public order (context first, then A..D)."""
    parts: list = []
    for name in (BEFORE, AFTER):
        if name in doc["clips"]:
            label = CONTEXT_LABELS[name]
            parts += [TextPart(label), VideoPart(ref=clip_ref(doc, name, label), label=label)]
    for letter, clip in zip(LETTERS[: len(doc["options"])], doc["options"], strict=True):
        label = f"[Candidate {letter}]"
        parts += [TextPart(label), VideoPart(ref=clip_ref(doc, clip, label), label=label)]
    return parts


def build_request(doc: dict, task: Task) -> list[Message]:
    """One user message: the task's prompt (rendered from its template) and the labelled clips."""
    return [Message("user", [TextPart(task.render_prompt(doc)), *labelled_parts(doc)])]


def target(doc: dict) -> str:
    """The letter under which the ground-truth clip is shown."""
    return doc["answer"]


def oracle_answer(doc: dict, target_letter: Any) -> dict:
    """The answer in the requested JSON form; with several samples per request, all of them."""
    text = json.dumps({"answer": target_letter, "reason": "oracle"})
    n = int(doc.get("n_samples", 1))
    return {"text": text, "structured": {"samples": [text] * n} if n > 1 else None}


def answer_space(docs: list[dict]) -> list[str]:
    """The four letters (the `random` baseline draws from them)."""
    return list(LETTERS)
