"""Turn harness Requests into the chat-template conversations transformers processors take.

Decoded frames travel inside the content entries ({"type": "video", "video": uint8 (T,H,W,3)}); each
video's metadata (frame count, the effective frame rate of the sampled frames) goes alongside, so models
that embed time (Qwen2.5-VL's time-aligned M-RoPE) see the real spacing of the frames. A labelled clip is
preceded by its label as text, and clips keep their order.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from harness.requests import ImagePart, Request, TextPart, VideoPart, label_text


def sampled_fps(timestamps: list[float], num_frames: int) -> Optional[float]:
    """Frames per second of the decoded frames from their timestamps; None when they do not say."""
    if num_frames < 2 or len(timestamps) != num_frames:
        return None
    span = float(timestamps[-1]) - float(timestamps[0])
    if span <= 0 or any(b <= a for a, b in zip(timestamps[:-1], timestamps[1:], strict=True)):
        return None
    return (num_frames - 1) / span


def _frames(part: VideoPart, request: Request) -> np.ndarray:
    frames = part.frames
    where = f"request doc_id={request.doc_id!r} of task {request.task!r}, video {part.ref.path!s}"
    if frames is None:
        raise ValueError(f"{where}: the video part has no decoded frames; the harness must decode it first")
    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8 or len(frames) == 0:
        raise ValueError(
            f"{where}: frames must be uint8 (T, H, W, 3) with T >= 1, got {frames.dtype} {tuple(frames.shape)}"
        )
    return frames


def video_metadata(part: VideoPart, frames: np.ndarray) -> dict[str, Any]:
    """The transformers VideoMetadata fields for one decoded clip (frames are already sampled)."""
    count, height, width = int(frames.shape[0]), int(frames.shape[1]), int(frames.shape[2])
    fps = sampled_fps(list(part.timestamps), count)
    return {
        "total_num_frames": count,
        "fps": fps,
        "duration": (count / fps) if fps else None,
        "frames_indices": list(range(count)),
        "height": height,
        "width": width,
    }


def to_conversation(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One request as (chat messages with media entries, metadata of each video in order)."""
    messages: list[dict[str, Any]] = []
    metadata: list[dict[str, Any]] = []
    for message in request.messages:
        content: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, VideoPart):
                frames = _frames(part, request)
                if part.label:
                    content.append({"type": "text", "text": label_text(part.label)})
                content.append({"type": "video", "video": frames})
                metadata.append(video_metadata(part, frames))
            elif isinstance(part, ImagePart):
                if part.label:
                    content.append({"type": "text", "text": label_text(part.label)})
                content.append({"type": "image", "image": np.asarray(part.image)})
            else:
                raise TypeError(
                    f"request doc_id={request.doc_id!r}: unknown message part {type(part).__name__}; "
                    "expected TextPart, ImagePart or VideoPart"
                )
        messages.append({"role": message.role, "content": content})
    return messages, metadata
