"""Synthetic moving-pattern videos for the demo, the tests and the benchmark (no downloads needed).

A seeded texture scrolls sideways while a bright square travels across it, so every frame differs from
its neighbours (motion for the flow filter, distinct candidates) and edges keep the Laplacian high.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from harness.frames import write_video


def pattern_frames(
    num_frames: int,
    width: int,
    height: int,
    speed: float = 2.0,
    seed: int = 0,
    static: bool = False,
    smooth: bool = False,
) -> Iterator[np.ndarray]:
    """Yield RGB uint8 frames of a scrolling textured pattern (`static`: the same frame every time;
    `smooth`: a soft texture that compresses like ordinary footage instead of hard-edged blocks)."""
    rng = np.random.default_rng(seed)
    span = width + int(abs(speed) * num_frames) + 8
    coarse = rng.integers(0, 256, size=(max(2, height // 6), max(2, span // 6), 3), dtype=np.uint8)
    if smooth:
        coarse = rng.integers(0, 256, size=(max(2, height // 48), max(2, span // 48), 3), dtype=np.uint8)
        texture = cv2.resize(coarse, (span, height), interpolation=cv2.INTER_CUBIC)
        texture[::32, :, :] = 255 - texture[::32, :, :]  # a few sharp lines
    else:
        texture = cv2.resize(coarse, (span, height), interpolation=cv2.INTER_NEAREST)
        texture[::8, :, :] = 255 - texture[::8, :, :]  # grid lines keep the Laplacian variance high
    side = max(4, height // 5)
    for t in range(num_frames):
        x0 = 0 if static else int(round(abs(speed) * t))
        frame = np.ascontiguousarray(texture[:, x0 : x0 + width])
        if not static:
            cx = int((t * 3) % max(1, width - side))
            cy = int((height - side) * (0.5 + 0.4 * np.sin(t / 7.0)))
            frame[cy : cy + side, cx : cx + side] = (255, 240, 40)
        yield frame


def write_pattern_video(
    path: str | os.PathLike,
    seconds: float,
    fps: float = 12.0,
    width: int = 96,
    height: int = 64,
    speed: float = 2.0,
    seed: int = 0,
    static: bool = False,
    smooth: bool = False,
    crf: int = 12,
) -> Path:
    """Write a synthetic pattern video of `seconds` at `fps` and return its path."""
    n = max(1, int(round(seconds * fps)))
    write_video(path, pattern_frames(n, width, height, speed, seed, static, smooth), fps, crf=crf)
    return Path(path)


def make_source_folder(
    folder: str | os.PathLike, count: int = 4, seconds: float = 6.0, fps: float = 12.0, seed: int = 0, **kw
) -> list[Path]:
    """A folder of `count` distinct pattern videos named vid00.mp4, vid01.mp4, ..."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    return [
        write_pattern_video(out / f"vid{i:02d}.mp4", seconds, fps, seed=seed * 1000 + i, **kw)
        for i in range(count)
    ]
