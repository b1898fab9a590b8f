"""Writing an item's clips as video files in the release layout (`choices/{stem}/...mp4`).

Each clip is decoded from the source through the core frames API in chunks (a clip of a long 720p video
never sits in memory whole) and encoded with PyAV at the source's frame rate.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from harness.api import FrameSpec, Segment, VideoRef
from harness.frames import load_clip, write_video

from .intervals import ClipPlan
from .layout import ALL_CLIPS, clip_file

CHUNK_FRAMES = 96


def _chunks(start: int, end: int, reverse: bool, size: int) -> Iterator[tuple[int, int]]:
    spans = [(s, min(end, s + size)) for s in range(start, end, size)]
    return iter(reversed(spans) if reverse else spans)


def clip_frames(source: Path, plan: ClipPlan, chunk: int = CHUNK_FRAMES) -> Iterator[np.ndarray]:
    """Yield the frames of a clip plan (full resolution, cropped to even sides for H.264)."""

    spec = FrameSpec(strategy="all")
    for piece in plan:
        for _ in range(piece.repeat):
            for lo, hi in _chunks(piece.start, piece.end, piece.reverse, chunk):
                ref = VideoRef(path=str(source), segments=(Segment(start=lo, end=hi, reverse=piece.reverse),))
                frames = load_clip(ref, spec).frames
                h, w = frames.shape[1:3]
                yield from frames[:, : h - h % 2, : w - w % 2]


def write_item_clips(
    source: Path, item_dir: Path, clips: dict[str, ClipPlan], fps: float, crf: int = 18
) -> int:
    """Encode every clip of an item under `item_dir`; returns the number of frames written."""
    total = 0
    for name in ALL_CLIPS:
        total += write_video(item_dir / clip_file(name), clip_frames(source, clips[name]), fps, crf=crf)
    return total
