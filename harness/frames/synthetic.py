"""Synthetic videos whose frames carry their own index, for tests, benches and demos.

The upper half of frame i is two flat grey patches encoding i (left: 24 + 8 * (i % 28), right:
24 + 8 * (i // 28)); grey lives in luma only, so it survives H.264, chroma subsampling and scaling
(within +-3 levels). The lower half is moving block texture, so the video encodes like a real one.
`read_marker` recovers i from a decoded frame, so a test can assert WHICH frame it got.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from harness.frames.writer import write_video

MAX_MARKED_FRAMES = 28 * 28


def marker_frames(num_frames: int, width: int, height: int, seed: int = 0) -> Iterator[np.ndarray]:
    """Yield `num_frames` RGB frames (height, width, 3) marked with their index."""
    if num_frames > MAX_MARKED_FRAMES:
        raise ValueError(f"marker_frames: at most {MAX_MARKED_FRAMES} frames, asked for {num_frames}")
    rng = np.random.default_rng(seed)
    block = 8 if min(width, height) >= 256 else 4
    tiles = rng.integers(0, 256, (height // block + 1, width // block + 1, 3), dtype=np.uint8)
    texture = np.repeat(np.repeat(tiles, block, axis=0), block, axis=1)[:height, :width]
    band = height // 2
    for i in range(num_frames):
        frame = np.roll(texture, shift=2 * i, axis=1).copy()
        frame[:band, : width // 2] = 24 + 8 * (i % 28)
        frame[:band, width // 2 :] = 24 + 8 * (i // 28)
        yield frame


def write_marker_video(
    path: str | os.PathLike, num_frames: int, width: int, height: int, fps: float = 25.0, **kwargs
) -> str:
    """Write a marked H.264 video (see module doc); extra kwargs go to write_video. Returns the path."""
    write_video(path, marker_frames(num_frames, width, height), fps, **kwargs)
    return str(path)


def read_marker(frame: np.ndarray) -> int:
    """The frame index encoded in the upper band of a decoded (H, W, 3) frame."""
    h, w = frame.shape[:2]
    rows = slice(h // 8, max(h // 8 + 1, (3 * h) // 8))
    low = float(frame[rows, w // 8 : max(w // 8 + 1, (3 * w) // 8)].mean())
    high = float(frame[rows, (5 * w) // 8 : max((5 * w) // 8 + 1, (7 * w) // 8)].mean())
    return int(round((high - 24) / 8)) * 28 + int(round((low - 24) / 8))
