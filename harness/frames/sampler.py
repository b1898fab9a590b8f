"""Frame samplers: a frame spec and a clip length -> positions within the clip.

Pure functions (no decoding), so the indices a task will see can be computed, logged and tested alone.
"""

from __future__ import annotations

import math

from harness.frames.spec import FrameSpec


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def uniform_positions(num_frames: int, count: int) -> list[int]:
    """`count` positions by linspace over [0, num_frames - 1], both endpoints included, rounded half up.

    With count == 1 this is [0] (numpy's linspace); with count > num_frames positions repeat.
    """
    if num_frames <= 0 or count <= 0:
        return []
    if count == 1:
        return [0]
    last = num_frames - 1
    return [_round_half_up(i * last / (count - 1)) for i in range(count)]


def segment_positions(num_frames: int, count: int, trim: int = 0) -> list[int]:
    """Midpoints of `n` equal bins over the clip without `trim` frames at each end.

    position_i = trim + int((i + 0.5) * (N - 2*trim) / n), n = min(count, N - 2*trim). A trim that would
    leave no frame is dropped (trim 0), so a very short clip still yields frames.
    """
    if num_frames <= 0 or count <= 0:
        return []
    if num_frames - 2 * trim < 1:
        trim = 0
    span = num_frames - 2 * trim
    n = min(count, span)
    return [trim + int((i + 0.5) * span / n) for i in range(n)]


def fps_positions(num_frames: int, fps: float, rate: float) -> list[int]:
    """One position every 1/rate seconds starting at 0: round_half_up(k * fps / rate), deduplicated."""
    if num_frames <= 0:
        return []
    if not fps or fps <= 0:
        raise ValueError(f"frame spec strategy 'fps' needs the video's frame rate, got fps={fps!r}")
    step = fps / rate
    if step <= 1:  # a rate at or above the video's: every frame (the loop below would take num_frames / step turns)
        return list(range(num_frames))
    out: list[int] = []
    k = 0
    while True:
        pos = _round_half_up(k * step)
        if pos >= num_frames:
            break
        if not out or pos != out[-1]:
            out.append(pos)
        k += 1
    return out


def sample_indices(num_frames: int, spec: FrameSpec, fps: float) -> list[int]:
    """Positions 0..num_frames-1 within a clip chosen by `spec`, then capped to `spec.max_frames`.

    The cap re-samples the chosen list uniformly (both endpoints kept), so a capped spec still spans
    the clip. `fps` is the video's frame rate (used by the `fps` strategy only).
    """
    if spec.strategy == "uniform":
        chosen = uniform_positions(num_frames, spec.count or 0)
    elif spec.strategy == "segment":
        chosen = segment_positions(num_frames, spec.count or 0, spec.trim)
    elif spec.strategy == "fps":
        chosen = fps_positions(num_frames, fps, float(spec.rate or 0))
    elif spec.strategy == "all":
        chosen = list(range(max(0, num_frames)))
    else:  # pragma: no cover - FrameSpec validates the strategy
        raise ValueError(f"unknown frame spec strategy {spec.strategy!r}")
    if spec.max_frames is not None and len(chosen) > spec.max_frames:
        chosen = [chosen[p] for p in uniform_positions(len(chosen), spec.max_frames)]
    return chosen
