"""Frame-folder videos: a directory of *.jpg / *.jpeg / *.png frames is a video (DAVIS JPEGImages style).

The agreed rule (HELPERS.md): a directory holding frame images is a video; frame i is the i-th image in
natural name order (00000.jpg, 00001.jpg, ... or frame_2.png before frame_10.png). Such a folder has no
frame rate of its own: it comes from the row (`VideoRef.fps`) or is `DEFAULT_FOLDER_FPS` (DAVIS 2017 is
24 fps), and the rate used is recorded with the decoded clip. The size is the first frame's; a frame of
another size is a corrupt video. Frames are decoded with PyAV (FFmpeg's image decoders) and scaled by the
same bilinear filter graph as video frames, so a folder and its MP4 encoding go through the same scaler.
The content identity hashes every frame file's name and bytes, so a renamed, replaced or added frame
changes it. A folder's probe and identity are memoised per listing (frame names, sizes, mtimes) by bounded
`functools.lru_cache`s (the last `_MEMO_MAX`): a listing's answer never changes, so runs in one process may
share them, and the bound keeps a long grid worker's memory flat (`forget()` drops them).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from harness.frames.errors import MAX_FRAME_SIDE, MediaError
from harness.frames.info import VideoInfo
from harness.frames.scaling import RgbConverter

FRAME_SUFFIXES = (".jpg", ".jpeg", ".png")
DEFAULT_FOLDER_FPS = 24.0  # DAVIS 2017 sequences are 24 fps
FOLDER_DECODER = "frame-folder"

_MEMO_MAX = 512  # folder listings whose probe (and, apart, identity) is kept


def _natural_key(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name))


def frame_files(path: str | os.PathLike) -> list[Path]:
    """The frame images of a folder in frame order (natural name order); [] when it is not a directory."""
    p = Path(path)
    try:
        entries = list(os.scandir(p))
    except (NotADirectoryError, FileNotFoundError, PermissionError):
        return []
    files = [
        Path(e.path)
        for e in entries
        if e.name.lower().endswith(FRAME_SUFFIXES) and not e.name.startswith(".") and e.is_file()
    ]
    return sorted(files, key=lambda f: _natural_key(f.name))


def is_frame_folder(path: str | os.PathLike) -> bool:
    """True when `path` is a directory holding at least one *.jpg / *.jpeg / *.png frame."""
    return os.path.isdir(path) and bool(frame_files(path))


@dataclass(frozen=True)
class FolderIndex:
    """A probed frame folder: its frame files in order and the VideoInfo the core plans with."""

    files: tuple[Path, ...]
    info: VideoInfo


def _listing(p: Path) -> tuple[list[Path], tuple]:
    files = frame_files(p)
    if not files:
        raise MediaError(p, "missing", f"not a video: no {'/'.join(FRAME_SUFFIXES)} frames in the folder")
    stats = []
    for f in files:
        st = f.stat()
        stats.append((f.name, st.st_size, st.st_mtime_ns))
    return files, (str(p.resolve()), tuple(stats))


def _open_first_frame(path: Path):
    import av

    try:
        with av.open(str(path)) as container:
            for frame in container.decode(video=0):
                return frame
    except (av.error.FFmpegError, IndexError) as exc:
        raise MediaError(path, "corrupt", f"unreadable frame image: {exc}") from None
    raise MediaError(path, "corrupt", "the frame image holds no picture")


def index_folder(path: str | os.PathLike, fps: Optional[float] = None) -> FolderIndex:
    """Probe a frame folder (memoised on its listing): frame count, size (first frame), the given rate."""
    files, key = _listing(Path(path))
    return _index_listing(tuple(files), key, float(fps) if fps else DEFAULT_FOLDER_FPS)


@functools.lru_cache(maxsize=_MEMO_MAX)
def _index_listing(files: tuple[Path, ...], key: tuple, rate: float) -> FolderIndex:
    """The probe of one listing (`key`: resolved folder, each frame's name, size and mtime) at `rate`."""
    first = _open_first_frame(files[0])
    if max(first.width, first.height) > MAX_FRAME_SIDE:
        raise MediaError(files[0], "too_large", f"{first.width}x{first.height} frames")
    codec = "png" if files[0].suffix.lower() == ".png" else "mjpeg"
    info = VideoInfo(
        num_frames=len(files),
        fps=rate,
        width=int(first.width),
        height=int(first.height),
        duration=len(files) / rate,
        codec=f"{FOLDER_DECODER}:{codec}",
    )
    return FolderIndex(files=files, info=info)


def decode_folder(index: FolderIndex, wanted: list[int], size: tuple[int, int]) -> np.ndarray:
    """Frames `wanted` (sorted, distinct) as (N, H, W, 3) uint8 RGB at `size` = (width, height)."""
    width, height = size
    out = np.empty((len(wanted), height, width, 3), dtype=np.uint8)
    converter = RgbConverter(width, height)
    w0, h0 = index.info.width, index.info.height
    for row, t in enumerate(wanted):
        frame = _open_first_frame(index.files[t])
        if (frame.width, frame.height) != (w0, h0):
            raise MediaError(
                index.files[t],
                "corrupt",
                f"frame {t} is {frame.width}x{frame.height}, the folder's first frame {w0}x{h0}",
            )
        converter.convert(frame, out[row])
    return out


def folder_identity(path: str | os.PathLike) -> str:
    """Content identity of a frame folder: sha256 over each frame's name and bytes, in frame order."""
    files, key = _listing(Path(path))
    return _listing_identity(tuple(files), key)


@functools.lru_cache(maxsize=_MEMO_MAX)
def _listing_identity(files: tuple[Path, ...], key: tuple) -> str:
    """The identity of one listing (`key`: see `_index_listing`), read from `files`."""
    h = hashlib.sha256(b"frame-folder\0")
    for f in files:
        h.update(f.name.encode() + b"\0")
        with open(f, "rb") as fh:
            for chunk in iter(lambda fh=fh: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()[:32]


def forget() -> None:
    """Drop the memoised probes and identities of frame folders (as in a new process)."""
    _index_listing.cache_clear()
    _listing_identity.cache_clear()


def folder_decoder_version() -> str:
    """The decoder string of frame-folder clips (cache keys, DecodedClip.decoder)."""
    import av

    return f"{FOLDER_DECODER}-pyav-{av.__version__}"
