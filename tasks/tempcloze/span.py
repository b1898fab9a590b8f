"""The visible-span analysis (the public `subset/eval_boundary_k.py`): BEGINNING shows only the last K of
its usual bin-centred frames and END only the first K; the four candidates keep all of theirs.

The public script samples each context clip exactly as the main evaluation does (16 frames) and keeps a
tail (BEGINNING) or head (END) of that list. A frame spec alone cannot say "the last K of the 16", so the
request names those frames: the context clip becomes a virtual clip of its K chosen source frames, played
with its own frame spec (every frame, K at most; the model's frame budget still caps it). Choosing them
needs the clip's frame count, read with the core's probe, the count its decoder uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from harness.api import FrameSpec, Segment, VideoRef, safe_media_path
from harness.frames import probe_video, sample_indices  # the decoder's frame count and sampler
from harness_tasks.tempcloze.protocol import AFTER, BEFORE

FULL = "Full"
# The public script's conditions: K = 1, 4, 8, 12 and Full (all 16 frames, i.e. tempcloze_hard).
PUBLIC_CONDITIONS: tuple[Optional[int], ...] = (1, 4, 8, 12, None)


def span_name(k: Optional[int]) -> str:
    """The public condition name: 'K4' for K = 4, 'Full' for every sampled frame (K None)."""
    return FULL if k is None else f"K{int(k)}"


def visible_positions(positions: list[int], k: int, clip_name: str) -> list[int]:
    """The part of a context clip's sampled positions the model sees: the last K of BEGINNING ('before'),
    the first K of END ('after'); all of them when K is at least their number (Python slicing, as public)."""
    if clip_name == BEFORE:
        return positions[-k:]
    if clip_name == AFTER:
        return positions[:k]
    raise ValueError(f"visible span applies to the context clips '{BEFORE}' and '{AFTER}', not '{clip_name}'")


def frame_runs(indices: list[int]) -> tuple[Segment, ...]:
    """Source frame indices as half-open frame segments, consecutive ascending indices merged."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i == runs[-1][1]:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    return tuple(Segment(start=a, end=b) for a, b in runs)


def visible_clip(
    ref: VideoRef, clip_name: str, k: int, spec: FrameSpec, root: Path, what: str
) -> tuple[VideoRef, Optional[FrameSpec]]:
    """The context clip `ref` cut to its visible K frames under the task's frame spec `spec`, and the
    clip's own frame spec. An unreadable file raises the core's MediaError (a counted media error); a clip
    that selects no frame is returned unchanged (the harness then reports it as an empty clip)."""

    info = probe_video(safe_media_path(root, ref.path, what))
    clip = ref.source_indices(info.num_frames, info.fps)
    shown = [clip[p] for p in visible_positions(sample_indices(len(clip), spec, info.fps), k, clip_name)]
    if not shown:
        return ref, None
    own = FrameSpec(
        strategy="all",
        max_frames=len(shown),
        max_side=spec.max_side,
        max_height=spec.max_height,
        decoder=spec.decoder,
    )
    return VideoRef(path=ref.path, segments=frame_runs(shown), label=ref.label), own
