"""Media references: a whole video file, or a virtual clip made of segments of one.

A virtual clip is a list of source frame indices (segments played in order, each optionally reversed or
repeated), so a TempCloze candidate such as "the gap played backwards" needs no re-encoding.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Segment(BaseModel):
    """A half-open span [start, end) of a source video, in frames or seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: float = Field(ge=0)
    end: float
    unit: Literal["frame", "second"] = "frame"
    reverse: bool = False
    repeat: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _check(self) -> Segment:
        if self.end <= self.start:
            raise ValueError(f"segment end ({self.end}) must be after its start ({self.start})")
        return self

    def frame_range(self, num_frames: int, fps: float) -> range:
        """Source frame indices covered, clipped to the video."""
        if self.unit == "second":
            lo, hi = int(round(self.start * fps)), int(round(self.end * fps))
        else:
            lo, hi = int(self.start), int(self.end)
        lo, hi = max(0, lo), min(num_frames, hi)
        return range(lo, max(lo, hi))


class VideoRef(BaseModel):
    """A video part of a request before decoding: a file, optionally cut into a virtual clip."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    segments: Optional[tuple[Segment, ...]] = None
    label: Optional[str] = None
    # Frame rate of a frame-folder video (a directory of frame images, harness/frames/folder.py), which has
    # none of its own; None: the folder default. A video file's own rate always wins.
    fps: Optional[float] = Field(default=None, gt=0)

    def source_indices(self, num_frames: int, fps: float) -> list[int]:
        """The clip as a list of source frame indices (the whole file when there are no segments)."""
        if not self.segments:
            return list(range(num_frames))
        out: list[int] = []
        for seg in self.segments:
            idx = list(seg.frame_range(num_frames, fps))
            if seg.reverse:
                idx.reverse()
            out.extend(idx * seg.repeat)
        return out

    def clip_key(self) -> list:
        """Segments as plain data, for cache keys."""
        return [s.model_dump(mode="json") for s in (self.segments or ())]


_identity_memo: dict[tuple, str] = {}
_identity_lock = threading.Lock()


def media_identity(path: str | os.PathLike) -> str:
    """Content identity of a media file: sha256 of its bytes (memoised on path, size, mtime and inode).

    Content rather than path, so a moved file keeps its cache entries and a replaced file never
    serves stale ones. A frame folder (a directory of frame images) hashes its frames' names and bytes.
    Raises FileNotFoundError naming the file when it is missing.
    """
    p = Path(path)
    if p.is_dir():
        from harness.frames.folder import folder_identity, is_frame_folder

        if is_frame_folder(p):
            return folder_identity(p)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"video file not found: {p}") from None
    memo_key = (str(p.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)
    with _identity_lock:
        hit = _identity_memo.get(memo_key)
    if hit:
        return hit
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    digest = h.hexdigest()[:32]
    with _identity_lock:
        _identity_memo[memo_key] = digest
    return digest
