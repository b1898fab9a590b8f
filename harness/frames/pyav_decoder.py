"""PyAV decoding planned per request: sequential decode, keyframe seeks, skipped non-reference frames.

Given the sorted distinct source frames a clip needs, the plan decodes forward from frame 0 and seeks
to a keyframe whenever the next wanted frame lies past a keyframe beyond the current position (sparse
sampling of long videos). For H.264 in MP4 (AVCC), packets of frames nobody asked for whose NAL units
all have nal_ref_idc == 0 are not decoded at all: no other frame references them. Only wanted frames
are converted (scaled in the shared filter graph, see scaling.py).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import numpy as np

from harness.frames.errors import MediaError
from harness.frames.probe import VideoIndex
from harness.frames.scaling import RgbConverter


def is_non_reference_h264(data: bytes, length_size: int) -> bool:
    """True when an AVCC H.264 packet holds coded slices only of non-reference pictures (nal_ref_idc 0)."""
    pos, n, saw_slice = 0, len(data), False
    while pos + length_size < n:
        size = int.from_bytes(data[pos : pos + length_size], "big")
        header = data[pos + length_size]
        nal_type = header & 0x1F
        if nal_type in (1, 2, 3, 4, 5):
            if nal_type == 5 or (header >> 5) & 3:
                return False
            saw_slice = True
        pos += length_size + size
    return saw_slice and pos == n


def plan_runs(wanted: Sequence[int], keyframes: Sequence[int]) -> list[tuple[int | None, list[int]]]:
    """Split sorted `wanted` frames into runs decoded without a seek; each run names the keyframe to
    seek to first (None: continue from where the previous run stopped, or from the start)."""
    runs: list[tuple[int | None, list[int]]] = []
    pos = 0
    for t in wanted:
        k = bisect.bisect_right(keyframes, t) - 1
        kf = keyframes[k] if k >= 0 else 0
        if kf > pos or not runs:
            runs.append((kf if kf > pos else None, [t]))
        else:
            runs[-1][1].append(t)
        pos = t + 1
    return runs


def decode_pyav(
    path: str | Path,
    index: VideoIndex,
    wanted: Sequence[int],
    size: tuple[int, int],
    threads: Optional[int] = None,
) -> np.ndarray:
    """Decode the sorted distinct source frames `wanted` of `path` at `size` (w, h) -> (len, h, w, 3) uint8.

    `threads`: FFmpeg's decoder threads (1: none; more: frame and slice threads, bit-exact); None keeps
    FFmpeg's default (slice threads only)."""
    import av

    w, h = size
    out = np.empty((len(wanted), h, w, 3), dtype=np.uint8)
    if not wanted:
        return out
    row_of = {t: r for r, t in enumerate(wanted)}
    converter = RgbConverter(w, h, index.info.rotation)
    by_pts = bool(index.pts_to_index)
    runs = plan_runs(wanted, index.keyframes) if by_pts else [(None, list(wanted))]
    try:
        container = av.open(str(path))
    except av.error.FFmpegError as exc:
        raise MediaError(path, "corrupt", str(exc)) from None
    try:
        stream = container.streams.video[0]
        if threads is not None:
            stream.thread_type = "AUTO" if threads > 1 else "SLICE"
            stream.thread_count = max(1, threads)
        for seek_to, targets in runs:
            if seek_to is not None:
                container.seek(index.pts[seek_to], stream=stream, backward=True, any_frame=False)
            _decode_run(container, stream, index, set(targets), row_of, converter, out, by_pts, path)
    except av.error.FFmpegError as exc:
        raise MediaError(path, "corrupt", str(exc)) from None
    finally:
        container.close()
    return out


def _decode_run(container, stream, index, targets, row_of, converter, out, by_pts, path) -> None:
    """Decode forward until every frame in `targets` is converted into its row of `out`."""
    skip_nonref = by_pts and index.nal_length_size > 0
    length_size = index.nal_length_size
    pts_to_index = index.pts_to_index
    remaining = set(targets)
    counter = 0
    for packet in container.demux(stream):
        if skip_nonref and packet.size and packet.pts is not None:
            at = pts_to_index.get(packet.pts)
            if at is not None and at not in remaining and is_non_reference_h264(bytes(packet), length_size):
                continue
        for frame in packet.decode():
            if by_pts:
                at = pts_to_index.get(frame.pts)
            else:
                at, counter = counter, counter + 1
            if at in remaining:
                converter.convert(frame, out[row_of[at]])
                remaining.discard(at)
        if not remaining:
            return
    if remaining:
        missing = sorted(remaining)
        raise MediaError(
            path, "truncated", f"frames {missing[:5]}{'...' if len(missing) > 5 else ''} could not be decoded"
        )
