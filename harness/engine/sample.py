"""One sample on its way through the engine: the instance the evaluator carries from the task to the adapter,
its error record, and the typed record scoring fills and the results are written from.

An `Instance` is made once per (task, doc) and carries everything about the sample: its `Request` (built once:
paths resolved and the frame budget applied in one pass), its effective frame spec and decoder identity
(computed once per task and clip count), its response or error (its `SampleRecord` is built from it, then scored in doc order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from harness.contract.messages import Request, Response
from harness.data.task import Task
from harness.frames.spec import FrameSpec


def sample_error(kind: str, exc: BaseException | str, reason: Optional[str] = None) -> dict[str, str]:
    """A per-sample error record: `kind` (media, request, generation, parse, ...), a short machine
    `reason` (MediaError's tag, else the exception type), and the human `message`."""
    msg = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    if reason is None:
        reason = getattr(exc, "reason", None) if not isinstance(exc, str) else None
        reason = reason or (type(exc).__name__ if not isinstance(exc, str) else "other")
    return {"kind": kind, "reason": str(reason), "message": str(msg)}


@dataclass(frozen=True)
class SampleFrames:
    """How a sample's clips are decoded: the task's frame spec under the model's per-clip budget (the effective
    spec) and the decoder identity it resolves to (part of the response-cache key)."""

    spec: FrameSpec
    decoder: str


@dataclass
class SampleRecord:
    """One scored sample, from scoring to the results: `to_json()` is its line in the samples file.

    `frames` is the effective frame spec the sample was built under (None when its request could not be
    built); the results' `effective_frame_spec` is read from it, never guessed."""

    doc_id: str
    task: str
    doc: dict
    target: Any
    prompt: Optional[str]
    frames: Optional[FrameSpec]
    media: list[dict]
    raw: Optional[str] = None
    structured: Optional[dict] = None
    parsed: Optional[dict] = None
    scores: dict[str, Any] = field(default_factory=dict)
    error: Optional[dict] = None

    def answer(self) -> dict[str, Any]:
        """The answer as a task's `prepare_scoring` hook receives it (the samples-file keys it reads)."""
        return {"raw": self.raw, "structured": self.structured, "doc": self.doc, "target": self.target}

    def to_json(self) -> dict[str, Any]:
        """The samples-file line (harness/results/schemas: `frame_spec` is the effective spec's digest)."""
        return {
            "doc_id": self.doc_id,
            "task": self.task,
            "doc": self.doc,
            "target": self.target,
            "prompt": self.prompt,
            "frame_spec": self.frames.digest() if self.frames else None,
            "media": self.media,
            "raw": self.raw,
            "structured": self.structured,
            "parsed": self.parsed,
            "scores": self.scores,
            "error": self.error,
        }


@dataclass
class Instance:
    """One (task, doc) pair on its way through the pipeline."""

    index: int
    task: Task
    doc: dict
    target: Any = None
    request: Optional[Request] = None  # built once, every clip's spec under the budget; no frames
    key: Optional[str] = None
    frames: Optional[SampleFrames] = None  # the effective frame spec and decoder identity
    response: Optional[Response] = None
    media_log: list[dict] = field(default_factory=list)
    error: Optional[dict] = None
    clip_keys: Optional[list[Optional[str]]] = None  # its video parts' clip keys while it awaits frames

    @property
    def spec(self) -> Optional[FrameSpec]:
        """The effective frame spec (None before the request is built, or when it could not be)."""
        return self.frames.spec if self.frames is not None else None
