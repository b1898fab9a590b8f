"""Fit a decoded request to what a model adapter can take (its Capabilities).

- A model without native video but with images gets each clip as labelled image parts, in place.
- A one-video model gets several clips as one interleaved frame list: a single video part made of all
  clips' frames, with a text legend naming each clip's frame range, so labels are not lost.
- A model that takes neither is refused with a clear error naming it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from harness.contract.messages import Capabilities, ImagePart, Message, Request, TextPart, VideoPart
from harness.errors import ConfigError


def per_clip_budget(caps: Capabilities, n_videos: int) -> int | None:
    """Frames allowed per clip when a request carries `n_videos` clips under the model's budget."""
    if caps.max_frames is None or n_videos == 0:
        return caps.max_frames
    return max(1, caps.max_frames // n_videos)


def _as_images(part: VideoPart) -> list:
    label = part.label
    out: list = []
    for i, frame in enumerate(part.frames if part.frames is not None else []):
        out.append(ImagePart(image=frame, label=f"{label} frame {i + 1}" if label else None))
    return out


def _merge_videos(message: Message) -> Message:
    videos = [p for p in message.content if isinstance(p, VideoPart)]
    if len(videos) <= 1:
        return message
    frames = np.concatenate([v.frames for v in videos], axis=0)
    legend, start = [], 1
    for n, v in enumerate(videos):
        count = len(v.frames)
        name = v.label or f"clip {n + 1}"
        legend.append(f"frames {start}-{start + count - 1}: {name}")
        start += count
    merged = VideoPart(
        ref=videos[0].ref,
        frames=frames,
        indices=[i for v in videos for i in v.indices],
        timestamps=[t for v in videos for t in v.timestamps],
        label=None,  # the legend is said once, in the text part before the video (adapters print labels)
    )
    content, placed = [], False
    for p in message.content:
        if isinstance(p, VideoPart):
            if not placed:
                content.append(TextPart("The video below joins several clips (" + "; ".join(legend) + ").\n"))
                content.append(merged)
                placed = True
        else:
            content.append(p)
    return Message(message.role, content)


def adapt_request(request: Request, caps: Capabilities, model_name: str) -> Request:
    """A copy of `request` the model can take; the original is left as it is."""
    videos = request.videos()
    if not videos:
        return request
    if caps.video and (caps.multi_video or len(videos) <= 1):
        return request
    messages = []
    for m in request.messages:
        if not any(isinstance(p, VideoPart) for p in m.content):
            messages.append(m)
        elif caps.images and not caps.video:
            content = []
            for p in m.content:
                content.extend(_as_images(p) if isinstance(p, VideoPart) else [p])
            messages.append(Message(m.role, content))
        elif caps.video:
            messages.append(_merge_videos(m))
        else:
            raise ConfigError(
                f"model '{model_name}' takes neither video nor images; task '{request.task}' needs video"
            )
    if caps.video and not caps.multi_video:
        total = sum(1 for m in messages for p in m.content if isinstance(p, VideoPart))
        if total > 1:  # clips spread over several messages: fall back to images if possible
            if not caps.images:
                raise ConfigError(
                    f"model '{model_name}' takes one video per request; task '{request.task}' sends {total}"
                )
    return replace(request, messages=messages)
