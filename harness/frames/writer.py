"""Video writing through PyAV (H.264 by default), for builders that render or cut clips."""

from __future__ import annotations

import os
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path

import numpy as np

from harness.files import atomic_path


def write_video(
    path: str | os.PathLike,
    frames: Iterable[np.ndarray],
    fps: float,
    codec: str = "libx264",
    crf: int = 18,
    pix_fmt: str = "yuv420p",
    options: dict[str, str] | None = None,
    threads: int = 1,
) -> int:
    """Encode RGB uint8 frames (H, W, 3) to `path`; returns the number of frames written.

    Written to a temporary name and renamed, so a killed build never leaves a half-written video.
    Width and height must be even for yuv420p (H.264's usual pixel format). `options` are extra encoder
    options merged over the defaults (e.g. {"x264-params": "keyint=8"} for a keyframe every 8 frames).

    `threads=1` (the default) keeps the bytes independent of the machine: with FFmpeg's automatic threading
    (`threads=0`) libx264 splits frames into one slice per thread, so the same frames encode differently
    on machines (or under CPU restrictions) with other CPU counts. Builders that promise byte-identical
    rebuilds keep the default and parallelise across videos instead; `threads=0` is faster for one large
    video when reproducible bytes do not matter.

    libx264's macroblock-tree rate control is off (`mbtree=0`, the x264 params the caller passes come after
    it and may turn it back on): with it, identical YUV frames encoded on one thread gave a different
    bitstream for one frame in 16 in a process that had just done other heavy work (3 of 3 runs; 0 of 9
    with `mbtree=0`, PyAV 18 / FFmpeg 8). The frames handed to the encoder were identical every time, so
    this was the encoder, not the data; see docs/reliability.md.
    """
    import av  # local import: PyAV is only needed when writing

    out = Path(path)
    with atomic_path(out, keep_suffix=True) as tmp:  # PyAV picks the container format from the suffix
        count = 0
        container = av.open(str(tmp), mode="w")
        try:
            stream = None
            for frame in frames:
                arr = np.ascontiguousarray(frame, dtype=np.uint8)
                if arr.ndim != 3 or arr.shape[2] != 3:
                    raise ValueError(
                        f"write_video({out}): frames must be (H, W, 3) uint8, got shape {arr.shape}"
                    )
                if stream is None:
                    h, w = arr.shape[:2]
                    if pix_fmt == "yuv420p" and (h % 2 or w % 2):
                        raise ValueError(f"write_video({out}): {w}x{h} is odd; yuv420p needs even sides")
                    stream = container.add_stream(codec, rate=Fraction(fps).limit_denominator(1001))
                    stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
                    stream.thread_count = threads  # FFmpeg-level threads of the codec context
                    if codec == "libx264":
                        base = {"crf": str(crf), "preset": "veryfast", "threads": str(threads)}
                        extra = dict(options or {})
                        x264 = ":".join(p for p in ("mbtree=0", extra.pop("x264-params", "")) if p)
                        stream.options = {**base, **extra, "x264-params": x264}
                    elif options:
                        stream.options = dict(options)
                for packet in stream.encode(av.VideoFrame.from_ndarray(arr, format="rgb24")):
                    container.mux(packet)
                count += 1
            if stream is not None:
                for packet in stream.encode():
                    container.mux(packet)
        finally:
            container.close()
        if count == 0:
            raise ValueError(f"write_video({out}): no frames given")
    return count
