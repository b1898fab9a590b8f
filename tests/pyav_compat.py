"""Test fixtures that need PyAV features which differ between the PyAV versions the project declares (12 up).

`remux` copies a video's packets into a new MP4 on any PyAV (`add_stream_from_template` since 14, the
`template=` argument before); `set_display_rotation` writes the display matrix into the `tkhd` box itself
(PyAV's own `set_display_rotation` exists only from 16 on), with the bytes FFmpeg's muxer writes.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Optional


def remux(src: str | Path, dst: str | Path, options: Optional[dict] = None) -> Path:
    """The video stream of `src` copied packet by packet into `dst` (muxer `options`, e.g. faststart)."""
    import av

    with av.open(str(src)) as inp, av.open(str(dst), "w", options=options or {}) as out:
        s_in = inp.streams.video[0]
        if hasattr(out, "add_stream_from_template"):
            s_out = out.add_stream_from_template(s_in)
        else:  # PyAV < 14
            s_out = out.add_stream(template=s_in)
        for pkt in inp.demux(s_in):
            if pkt.dts is None:
                continue
            pkt.stream = s_out
            out.mux(pkt)
    return Path(dst)


def set_display_rotation(path: str | Path, ccw: int) -> None:
    """Rotate the display of the first track of an MP4 by `ccw` degrees counter-clockwise (0/90/180/270), as
    PyAV 16's `stream.set_display_rotation(ccw)` does: the `tkhd` matrix [cos, -sin, 0; sin, cos, 0; 0, 0, 1]."""
    cos, sin = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}[ccw % 360]
    data = bytearray(Path(path).read_bytes())
    at = data.find(b"tkhd")
    if at < 0:
        raise ValueError(f"{path}: no tkhd box")
    start = at + 4
    off = start + 4 + (32 if data[start] == 1 else 20) + 16  # version 1 has 64-bit times
    one = 1 << 16
    matrix = (cos * one, -sin * one, 0, sin * one, cos * one, 0, 0, 0, 1 << 30)
    data[off : off + 36] = struct.pack(">9i", *matrix)
    Path(path).write_bytes(bytes(data))
