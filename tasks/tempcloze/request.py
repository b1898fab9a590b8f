"""Request hooks: the labelled multi-clip message, the target letter and the oracle's answer.

The message follows the public evaluation: the prompt, then "[BEGINNING]" and its frames, "[END]" and its
frames, then "[Candidate A]".."[Candidate D]" each followed by its clip. Every clip is its own VideoPart
and its `label` is the one place that names it: the adapters print it as text right before the frames
(`harness.api.label_text`, which keeps a bracketed label as written), a one-video model gets it in
the merged video's legend, so the model reads each label once, as in the public prompt. A doc
with `context_frames` K (the visible-span analysis, tasks/tempcloze/span.py) shows only the last K
frames of BEGINNING and the first K of END, each context clip then carrying its own frame spec.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from harness.api import Message, Segment, Task, TextPart, VideoPart, VideoRef
from harness_tasks.tempcloze.protocol import AFTER, BEFORE, LETTERS
from harness_tasks.tempcloze.span import visible_clip

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


def context_part(doc: dict, name: str, task: Optional[Task]) -> VideoPart:
    """A context clip's VideoPart: the whole clip, or (doc `context_frames` K) its visible K frames."""
    label = CONTEXT_LABELS[name]
    ref = clip_ref(doc, name, label)
    k = doc.get("context_frames")
    if k is None:
        return VideoPart(ref=ref, label=label)
    if task is None:
        raise ValueError(
            f"doc '{doc.get('id')}': context_frames needs the task (its frame spec and data root)"
        )
    root = Path(task.data_root or task.base_dir)
    what = f"task '{task.name}' doc '{doc.get('id')}'"
    ref, spec = visible_clip(ref, name, int(k), task.config.frames, root, what)
    return VideoPart(ref=ref, label=label, spec=spec)


def labelled_parts(doc: dict, task: Optional[Task] = None) -> list:
    """A labelled VideoPart for each shown clip, in the public order (context first, then A..D)."""
    parts: list = []
    for name in (BEFORE, AFTER):
        if name in doc["clips"]:
            parts.append(context_part(doc, name, task))
    for letter, clip in zip(LETTERS[: len(doc["options"])], doc["options"], strict=True):
        label = f"[Candidate {letter}]"
        parts.append(VideoPart(ref=clip_ref(doc, clip, label), label=label))
    return parts


def build_request(doc: dict, task: Task) -> list[Message]:
    """One user message: the task's prompt (rendered from its template) and the labelled clips."""
    return [Message("user", [TextPart(task.render_prompt(doc)), *labelled_parts(doc, task)])]


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
