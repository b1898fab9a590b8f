"""What a model adapter receives and returns: chat messages of text, image and video parts.

Video parts arrive decoded (uint8 frames, the source frame indices and their timestamps): adapters never
open files. Hints carry what baseline models need (the task's answer space, the target for `oracle`, the
key for `prior`) so that no adapter ever branches on a task's name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Union

import numpy as np

from harness.data.media import VideoRef
from harness.frames.spec import FrameSpec


@dataclass
class TextPart:
    """Plain text inside a message."""

    text: str
    type: str = "text"


@dataclass
class ImagePart:
    """One decoded image (H, W, 3) uint8, optionally labelled."""

    image: np.ndarray
    label: Optional[str] = None
    type: str = "image"


@dataclass
class VideoPart:
    """A decoded video or clip: frames (T, H, W, 3) uint8 with their source indices and timestamps.

    `spec` lets a task sample one clip differently from the others (TempCloze's visible-span analysis);
    the model's frame budget still caps it."""

    ref: VideoRef
    frames: Optional[np.ndarray] = None
    indices: list[int] = field(default_factory=list)
    timestamps: list[float] = field(default_factory=list)
    label: Optional[str] = None
    type: str = "video"
    spec: Optional[FrameSpec] = (
        None  # this clip's own frame spec (e.g. denser context clips); None: the task's
    )


Part = Union[TextPart, ImagePart, VideoPart]

# A label already closed by one of these is printed as it is; any other gets a colon ("Clip 1" -> "Clip 1:").
_CLOSED_LABEL = ("]", ")", ":")


def label_text(label: str) -> str:
    """How an adapter prints a clip's or image's label, as a text part right before its frames.

    The part's `label` is the one owner of a clip's name: tasks set it and do not write it again as text;
    adapters print it with this function, so "[Candidate A]" reaches the model exactly as the task wrote it
    (TempCloze's public prompt) and a bare name such as "Clip 1" as "Clip 1:"."""
    return label if label.endswith(_CLOSED_LABEL) else f"{label}:"


@dataclass
class Message:
    """One chat turn."""

    role: str
    content: list[Part]

    def text(self) -> str:
        """The message's text parts joined (media parts left out)."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


@dataclass
class Request:
    """One generation request: messages, generation kwargs and the task's frame spec."""

    messages: list[Message]
    gen_kwargs: dict[str, Any] = field(default_factory=dict)
    frame_spec: Optional[FrameSpec] = None
    task: str = ""
    doc_id: str = ""
    hints: dict[str, Any] = field(default_factory=dict)

    def videos(self) -> list[VideoPart]:
        """Every video part, in order."""
        return [p for m in self.messages for p in m.content if isinstance(p, VideoPart)]

    def with_frames(self, clips: Sequence[Any]) -> Request:
        """This request with its video parts' frames filled in from `clips` (decoded clips, one per video part
        in order: `frames`, `indices`, `timestamps`). A copy: the request a sample carries holds no frames, so
        decoded frames live only as long as the model call that takes them."""
        decoded = iter(clips)

        def filled(part: Part) -> Part:
            if not isinstance(part, VideoPart):
                return part
            clip = next(decoded)
            indices, timestamps = list(clip.indices), list(clip.timestamps)
            return replace(part, frames=clip.frames, indices=indices, timestamps=timestamps)

        messages = [Message(m.role, [filled(p) for p in m.content]) for m in self.messages]
        return replace(self, messages=messages)

    def prompt_text(self) -> str:
        """All text of the request, with media shown as `<video:label>` placeholders (for logs and keys)."""
        chunks = []
        for m in self.messages:
            for p in m.content:
                if isinstance(p, TextPart):
                    chunks.append(p.text)
                elif isinstance(p, VideoPart):
                    chunks.append(f"<video{':' + p.label if p.label else ''}>")
                else:
                    chunks.append(f"<image{':' + p.label if p.label else ''}>")
        return "".join(chunks)


@dataclass
class Response:
    """A model's answer: text, optional structured output (RLE masks, boxes) and usage accounting."""

    text: str
    structured: Optional[dict[str, Any]] = None
    usage: Optional[dict[str, Any]] = None

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "structured": self.structured, "usage": self.usage}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Response:
        return cls(text=data.get("text", ""), structured=data.get("structured"), usage=data.get("usage"))


@dataclass(frozen=True)
class Capabilities:
    """What an adapter can take; the harness adapts requests to it.

    video: takes video parts natively; multi_video: several video parts in one message;
    images: takes image parts; max_frames: frame budget per request (lowers the task's, never raises);
    structured_outputs: e.g. {"masks", "boxes"} produced natively.
    """

    video: bool = True
    multi_video: bool = True
    images: bool = True
    max_frames: Optional[int] = None
    structured_outputs: frozenset[str] = frozenset()


@dataclass
class TaskInfo:
    """What a task tells a model before its requests (answer space, training-split prior)."""

    name: str
    answer_space: Optional[Union[list[str], dict[str, list[str]]]] = None
    prior: Optional[Callable[[], dict[str, str]]] = None
