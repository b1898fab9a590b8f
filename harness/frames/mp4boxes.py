"""Just enough ISO-BMFF (MP4/MOV) box reading for the probe: is the file cut off, is it rotated.

FFmpeg reports neither directly through PyAV: a cut-off MP4 fails to open like any corrupt file, and the
display rotation only shows on decoded frames. Both are read here from the box headers and `tkhd`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from pathlib import Path

_TOP_LEVEL = (b"ftyp", b"moov", b"mdat", b"free", b"wide", b"skip", b"uuid")


def _boxes(data: bytes, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """(type, payload start, box end) of the boxes in data[start:end]."""
    pos = start
    while pos + 8 <= end:
        size = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        header = 8
        if size == 1 and pos + 16 <= end:
            size, header = int.from_bytes(data[pos + 8 : pos + 16], "big"), 16
        elif size == 0:
            size = end - pos
        if size < header:
            return
        yield kind, pos + header, min(pos + size, end)
        pos += size


def _top_level(f, size: int) -> Iterator[tuple[bytes, int, int]]:
    """(type, offset, box size) of top-level boxes, read by seeking (the file is not loaded)."""
    pos = 0
    while pos + 8 <= size:
        f.seek(pos)
        head = f.read(16)
        box = int.from_bytes(head[:4], "big")
        if box == 1 and len(head) >= 16:
            box = int.from_bytes(head[8:16], "big")
        elif box == 0:
            box = size - pos
        if box < 8:
            return
        yield head[4:8], pos, box
        pos += box


def is_mp4(path: str | Path) -> bool:
    """Whether the file starts like an ISO-BMFF file."""
    try:
        with open(path, "rb") as f:
            return f.read(8)[4:8] in _TOP_LEVEL
    except OSError:
        return False


def mp4_cut_off(path: str | Path, size: int) -> bool:
    """True when the file looks like MP4/MOV and a top-level box runs past its end (a cut-off copy)."""
    if not is_mp4(path):
        return False
    try:
        with open(path, "rb") as f:
            return any(offset + box > size for _kind, offset, box in _top_level(f, size))
    except OSError:
        return False


def mp4_rotation(path: str | Path, size: int) -> int:
    """Clockwise degrees (0, 90, 180, 270) to turn the first video track's frames upright for display.

    From the `tkhd` matrix, as FFmpeg's autorotate does (display rotation r counter-clockwise -> turn
    the picture by -r). 0 for non-MP4 files and for anything unreadable.
    """
    if not is_mp4(path):
        return 0
    try:
        with open(path, "rb") as f:
            moov = next(((o, b) for kind, o, b in _top_level(f, size) if kind == b"moov"), None)
            if moov is None or moov[1] > 64 * 2**20:
                return 0
            f.seek(moov[0])
            data = f.read(moov[1])
    except OSError:
        return 0
    for kind, start, end in _boxes(data, 8, len(data)):
        if kind != b"trak":
            continue
        matrix, is_video = None, False
        for sub, s, e in _boxes(data, start, end):
            if sub == b"tkhd" and e - s >= 84:
                skip = 32 if data[s] == 1 else 20  # version 1 has 64-bit times
                off = s + 4 + skip + 16
                matrix = struct.unpack(">9i", data[off : off + 36])
            elif sub == b"mdia":
                for leaf, ls, le in _boxes(data, s, e):
                    if leaf == b"hdlr" and le - ls >= 12 and data[ls + 8 : ls + 12] == b"vide":
                        is_video = True
        if is_video:
            if matrix is None:
                return 0
            angle = math.degrees(math.atan2(matrix[1] / 65536, matrix[0] / 65536))
            return int(round(angle / 90.0)) % 4 * 90
    return 0
