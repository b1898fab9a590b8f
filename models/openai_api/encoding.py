"""Requests as OpenAI chat messages: text parts, and decoded frames as base64 JPEG/PNG image parts
(or, with a `VideoEncoder`, each clip as one `video_url` part: see models/openai_api/video.py).

A clip's label (e.g. "Clip B") is sent as a text part right before its frames, clips keep their order,
and every frame of a clip follows in time order, so a server sees what a local model would.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from PIL import Image

from harness.api import ImagePart, Request, TextPart, VideoPart, label_text

if TYPE_CHECKING:
    from harness_models.openai_api.video import VideoEncoder

FORMATS = {"jpeg": "image/jpeg", "png": "image/png"}


def image_data_url(image: np.ndarray, fmt: str = "jpeg", quality: int = 90) -> str:
    """One uint8 (H, W, 3) image as a `data:` URL (JPEG at `quality`, or lossless PNG)."""
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim != 3 or array.shape[-1] != 3:
        raise ValueError(f"an image must be uint8 (H, W, 3), got {array.dtype} {tuple(array.shape)}")
    buffer = io.BytesIO()
    if fmt == "jpeg":
        Image.fromarray(array).save(buffer, format="JPEG", quality=quality)
    elif fmt == "png":
        Image.fromarray(array).save(buffer, format="PNG")
    else:
        raise ValueError(f"image_format={fmt!r} is not one of {', '.join(FORMATS)}")
    payload = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"data:{FORMATS[fmt]};base64,{payload}"


def _image_part(image: np.ndarray, fmt: str, quality: int, detail: str | None) -> dict[str, Any]:
    url: dict[str, Any] = {"url": image_data_url(image, fmt, quality)}
    if detail:
        url["detail"] = detail
    return {"type": "image_url", "image_url": url}


def to_messages(
    request: Request,
    fmt: str = "jpeg",
    quality: int = 90,
    detail: str | None = None,
    video: Optional[VideoEncoder] = None,
) -> list[dict]:
    """The request's chat messages in the OpenAI format: frames inlined as image parts, or each clip as a
    `video_url` part when `video` (an encoder whose mode is not `images`) is given."""
    messages = []
    for message in request.messages:
        content: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, VideoPart):
                if part.frames is None:
                    raise ValueError(
                        f"request doc_id={request.doc_id!r} of task {request.task!r}: video {part.ref.path!s} "
                        "has no decoded frames; the harness must decode it first"
                    )
                if part.label:
                    content.append({"type": "text", "text": label_text(part.label)})
                if video is not None and video.mode != "images":
                    content.append(video.part(part))
                else:
                    content.extend(_image_part(frame, fmt, quality, detail) for frame in part.frames)
            elif isinstance(part, ImagePart):
                if part.label:
                    content.append({"type": "text", "text": label_text(part.label)})
                content.append(_image_part(part.image, fmt, quality, detail))
            else:
                raise TypeError(
                    f"request doc_id={request.doc_id!r}: unknown message part {type(part).__name__}"
                )
        if all(c["type"] == "text" for c in content):
            messages.append({"role": message.role, "content": "".join(c["text"] for c in content)})
        else:
            messages.append({"role": message.role, "content": content})
    return messages
