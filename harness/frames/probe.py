"""Probing a video: frame count, rate, size, codec and a packet index (timestamps, keyframes).

The index comes from demuxing without decoding (cheap), like decord's, so frame i is the i-th frame in
presentation order for both decoders. Results are memoised per file version (path, size, mtime, inode) by a
bounded `functools.lru_cache` (the last `_MEMO_MAX` versions): a version's index never changes, so it is
safe to share between runs in one process, and the bound keeps a long grid worker's memory flat (no
module-level dict that grows; `forget()` drops them, as in a new process).
"""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from harness.frames import folder
from harness.frames.errors import MAX_FRAME_SIDE, MediaError
from harness.frames.folder import index_folder, is_frame_folder
from harness.frames.info import VideoInfo
from harness.frames.mp4boxes import mp4_cut_off, mp4_rotation


@dataclass(frozen=True)
class VideoIndex:
    """The probe plus the per-frame packet index the PyAV decoder plans with (internal)."""

    info: VideoInfo
    pts: tuple[int, ...]  # presentation timestamps of frames 0..N-1, stream time base
    keyframes: tuple[int, ...]  # frame indices of keyframes, ascending
    time_base: float
    start_pts: int
    nal_length_size: int = 0  # H.264 AVCC length-prefix size, 0 when not AVCC H.264
    pts_to_index: dict[int, int] = field(default_factory=dict, compare=False, repr=False)

    def timestamp(self, index: int) -> float:
        """Seconds from the start of the stream to frame `index`."""
        return (self.pts[index] - self.start_pts) * self.time_base


_MEMO_MAX = 512  # file versions whose index is kept


_NOT_A_FILE = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def check_file(path: str | os.PathLike) -> os.stat_result:
    """Stat `path` before anything opens it; raises MediaError unless it is a readable video.

    Only a regular file (or a folder of frame images) passes: a directory, FIFO, socket or device is
    'not_a_file' (opening a FIFO would block forever), a zero-byte file 'empty', a missing one 'missing',
    and any other OSError (permission, I/O, symlink loop) 'unreadable'. Symlinks are followed here; the
    dataset-root policy for them is `harness.data.media.safe_media_path`.
    """
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise MediaError(Path(path), "missing", "file not found") from None
    except OSError as exc:
        raise MediaError(Path(path), "unreadable", f"{type(exc).__name__}: {exc.strerror or exc}") from None
    if stat.S_ISREG(st.st_mode) and st.st_size > 0:  # the common case, without building a Path
        return st
    p = Path(path)
    if stat.S_ISDIR(st.st_mode):
        if is_frame_folder(p):
            return st
        raise MediaError(p, "not_a_file", "a directory without frame images (*.jpg, *.jpeg, *.png)")
    if not stat.S_ISREG(st.st_mode):
        kind = next((what for test, what in _NOT_A_FILE if test(st.st_mode)), "not a regular file")
        raise MediaError(p, "not_a_file", kind)
    if st.st_size == 0:
        raise MediaError(p, "empty", "zero bytes")
    return st


def _open_error(path: Path, size: int, exc: Exception) -> MediaError:
    if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError):  # PyAV's EACCES, EIO, ...
        return MediaError(path, "unreadable", str(exc))
    if mp4_cut_off(path, size):
        return MediaError(path, "truncated", str(exc))
    return MediaError(path, "corrupt", str(exc))


def _nal_length_size(codec_name: str, extradata: bytes | None) -> int:
    if codec_name == "h264" and extradata and len(extradata) >= 5 and extradata[0] == 1:
        return (extradata[4] & 3) + 1
    return 0


def _demux_pts(container, stream) -> tuple[list[int], list[int]]:
    """Every non-empty video packet's pts (its dts when it has none), sorted, and the keyframes' pts."""
    pts_list: list[int] = []
    keys: list[int] = []
    for pkt in container.demux(stream):
        if pkt.size == 0:
            continue
        pts = pkt.pts if pkt.pts is not None else pkt.dts
        if pts is None:
            continue
        pts_list.append(pts)
        if pkt.is_keyframe:
            keys.append(pts)
    pts_list.sort()
    return pts_list, keys


def _stream_fps(stream, pts_list: list[int], time_base: float) -> float:
    """The stream's declared rate, else the rate its timestamps span, else 0."""
    rate = stream.average_rate or stream.guessed_rate or stream.base_rate
    if rate:
        return float(rate)
    if len(pts_list) > 1 and time_base:
        return (len(pts_list) - 1) / ((pts_list[-1] - pts_list[0]) * time_base)
    return 0.0


def index_video(path: str | os.PathLike) -> VideoIndex:
    """Probe `path` and index its video packets (memoised per file version); raises MediaError for
    unreadable files."""
    p = Path(path)
    st = check_file(p)
    return _index_version(p, (str(p.resolve()), st.st_size, st.st_mtime_ns, st.st_ino))


@functools.lru_cache(maxsize=_MEMO_MAX)
def _index_version(p: Path, version: tuple) -> VideoIndex:
    """The index of one file version (`version`: resolved path, size, mtime, inode); a failure is not kept."""
    import av

    size = version[1]
    try:
        container = av.open(str(p))
    except av.error.FFmpegError as exc:
        raise _open_error(p, size, exc) from None
    try:
        if not container.streams.video:
            raise MediaError(p, "no_video_stream", f"streams: {[s.type for s in container.streams]}")
        stream = container.streams.video[0]
        ctx = stream.codec_context
        if ctx is None:
            raise MediaError(p, "unsupported_codec", "FFmpeg has no decoder for its video codec")
        try:
            pts_list, keys = _demux_pts(container, stream)
        except av.error.FFmpegError as exc:
            raise _open_error(p, size, exc) from None
        if not pts_list:
            raise _open_error(p, size, ValueError("no video frames"))
        order = {pts: i for i, pts in enumerate(pts_list)}
        time_base = float(stream.time_base) if stream.time_base else 0.0
        n = len(pts_list)
        fps = _stream_fps(stream, pts_list, time_base)
        rotation = mp4_rotation(p, size)
        width, height = int(ctx.width), int(ctx.height)
        if rotation in (90, 270):
            width, height = height, width
        info = VideoInfo(
            num_frames=n,
            fps=fps,
            width=width,
            height=height,
            duration=n / fps if fps else 0.0,
            codec=str(ctx.name),
            rotation=rotation,
        )
        extradata = bytes(ctx.extradata) if ctx.extradata else None
        index = VideoIndex(
            info=info,
            pts=tuple(pts_list),
            keyframes=tuple(sorted(order[k] for k in set(keys) if k in order)),
            time_base=time_base,
            start_pts=pts_list[0],
            nal_length_size=_nal_length_size(info.codec, extradata),
            pts_to_index=order if len(order) == n else {},
        )
    finally:
        container.close()
    if info.width <= 0 or info.height <= 0:
        raise MediaError(p, "corrupt", f"video stream has no size ({info.width}x{info.height})")
    if max(info.width, info.height) > MAX_FRAME_SIDE:  # checked before any frame is decoded
        raise MediaError(p, "too_large", f"{info.width}x{info.height} frames")
    return index


def forget() -> None:
    """Drop every memoised probe, of videos and of frame folders (as in a new process: benches, tests)."""
    _index_version.cache_clear()
    folder.forget()


def probe_video(path: str | os.PathLike, fps: float | None = None) -> VideoInfo:
    """Frame count, fps, width, height, duration and codec of `path`; MediaError when unreadable.

    `path` may be a frame folder (harness/frames/folder.py); `fps` is then its frame rate (default 24).
    """
    if is_frame_folder(path):
        return index_folder(path, fps).info
    return index_video(path).info
