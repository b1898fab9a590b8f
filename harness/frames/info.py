"""What a probe says a video is (a video file's or a frame folder's): `VideoInfo`, shared by the file prober
(harness/frames/probe.py) and the frame-folder reader (harness/frames/folder.py)."""

from __future__ import annotations

from dataclasses import dataclass

#: the file suffixes a folder of source videos is searched for (lower case; the builders' --videos DIR)
VIDEO_SUFFIXES = (".mp4", ".mkv", ".mov", ".avi", ".webm", ".m4v")


@dataclass(frozen=True)
class VideoInfo:
    """What a video is: frames, rate, size, duration (num_frames / fps, seconds) and codec name.

    width and height are the displayed size: for a video stored with a display rotation of 90 or 270
    degrees (`rotation`, clockwise, applied when decoding) they are the stored height and width.
    """

    num_frames: int
    fps: float
    width: int
    height: int
    duration: float
    codec: str
    rotation: int = 0
