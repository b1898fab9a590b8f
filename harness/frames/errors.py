"""MediaError: the one exception the frames subsystem raises for a video it cannot read.

The evaluator turns it into a counted per-sample error, so it carries the file and a short machine tag.
"""

from __future__ import annotations

import os

#: Machine tags used in `MediaError.reason`.
REASONS = (
    "missing",
    "not_a_file",
    "unreadable",
    "empty",
    "corrupt",
    "truncated",
    "unsupported_codec",
    "no_video_stream",
    "decoder_failed",
    "empty_clip",
    "too_large",
)

#: the largest frame side decoded (16K; H.264 stops at 8K): a file claiming more would need gigabytes per frame
MAX_FRAME_SIDE = 16384


class MediaError(Exception):
    """A video file that cannot be decoded: missing, empty, truncated, corrupt or of an unsupported codec.

    `path` is the file, `reason` a short tag from `REASONS`, `detail` the underlying library message.
    """

    def __init__(self, path: str | os.PathLike, reason: str, detail: str = "") -> None:
        self.path = str(path)
        self.reason = reason
        self.detail = detail
        hint = _HINTS.get(reason, "")
        msg = f"cannot decode video {self.path}: {reason}"
        if detail:
            msg += f" ({detail})"
        if hint:
            msg += f"; {hint}"
        super().__init__(msg)

    def __reduce__(self):  # keep picklable across multiprocessing with its attributes
        return (type(self), (self.path, self.reason, self.detail))


_HINTS = {
    "missing": "check the dataset root (--data) or rebuild the dataset",
    "not_a_file": "point the dataset at a regular video file (or a folder of frame images)",
    "unreadable": "check the file's permissions and the disk it is on",
    "empty": "the file has zero bytes; re-download or rebuild it",
    "truncated": "the file ends early (interrupted copy or download?); re-download or rebuild it",
    "corrupt": "the file is not a readable video; re-download or rebuild it",
    "unsupported_codec": "re-encode it to H.264 (e.g. ffmpeg -i IN -c:v libx264 OUT.mp4)",
    "no_video_stream": "the file has no video track",
    "empty_clip": "the segments lie outside the video; check the clip bounds in the dataset",
    "too_large": f"frames over {MAX_FRAME_SIDE} pixels a side are not decoded; downscale the video (ffmpeg -vf scale)",
}
