"""decord decoding: VideoReader at the target size, get_batch in bounded chunks.

decord scales inside its own FFmpeg filter graph (bilinear swscale), so full-size frames are never
returned; chunks keep the temporary batch copy small (peak memory = output + one chunk).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import numpy as np

from harness.frames.errors import MediaError

CHUNK = 16


def decord_available() -> bool:
    """Whether decord imports on this machine (it has no wheels for some platforms)."""
    try:
        import decord  # noqa: F401
    except ImportError:
        return False
    return True


def decode_decord(
    path: str | Path,
    num_frames: int,
    wanted: Sequence[int],
    size: tuple[int, int],
    rotation: int = 0,
    threads: Optional[int] = None,
) -> np.ndarray:
    """Decode the sorted distinct source frames `wanted` at `size` (w, h) -> (len, h, w, 3) uint8.

    Raises MediaError 'decoder_failed' (with decord's message) when decord cannot read the file or
    disagrees with the probe on the frame count (its indices would not match PyAV's). decord 0.6 fails on
    videos with a display rotation (malformed or mis-sized batches), so those are refused up front.
    `threads`: decord's decoder threads (None: its default, one per core).
    """
    import decord

    if rotation:
        raise MediaError(path, "decoder_failed", f"decord cannot decode videos rotated by {rotation} degrees")
    w, h = size
    out = np.empty((len(wanted), h, w, 3), dtype=np.uint8)
    try:
        extra = {"num_threads": threads} if threads else {}
        reader = decord.VideoReader(str(path), ctx=decord.cpu(0), width=w, height=h, **extra)
        if len(reader) != num_frames:
            raise MediaError(
                path, "decoder_failed", f"decord counts {len(reader)} frames, probe {num_frames}"
            )
        for start in range(0, len(wanted), CHUNK):
            chunk = list(wanted[start : start + CHUNK])
            batch = reader.get_batch(chunk).asnumpy()
            if batch.shape != (len(chunk), h, w, 3):
                raise MediaError(path, "decoder_failed", f"decord returned frames of shape {batch.shape[1:]}")
            out[start : start + len(chunk)] = batch
    except decord.DECORDError as exc:
        raise MediaError(path, "decoder_failed", f"decord: {str(exc).splitlines()[0][:200]}") from None
    return out
