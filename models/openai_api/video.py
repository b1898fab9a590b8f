"""A clip's sampled frames as the video input OpenAI-compatible video servers take (vLLM, SGLang, transformers).

Three modes (model arg `video_mode`):
- `images`: every frame an `image_url` part (what any vision endpoint takes; the server never sees a video);
- `video`: one `video_url` part holding an encoded clip of exactly the sampled frames, in order, at their
  real spacing (the clip's frame rate is the sampled frames' rate), so the server's video processor runs as
  the in-process one does; `video_codec=lossless` (H.264 RGB, qp 0: the server decodes the very pixels the
  harness decoded) or `lossy` (H.264 crf `video_crf`);
- `frames`: vLLM's frame-list form, `data:video/jpeg;base64,<frame>,<frame>,...` (JPEG frames).

Where the clip travels (`video_transport`): `data` (a base64 `data:` URL; vLLM and SGLang), `path` (a file
on this machine, for a server on the same machine that opens local paths: transformers serve) or `file_url`
(`file://` URL; vLLM with `--allowed-local-media-path`). Files are written under `video_dir` (a temp folder
by default) named by the content hash of the encoded bytes, so a clip is written once.
"""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

import numpy as np

from harness.api import ModelArgsError, VideoPart, write_atomic
from harness_models.hf.conversation import sampled_fps

VIDEO_MODES = ("images", "video", "frames")
VIDEO_CODECS = ("lossless", "lossy")
VIDEO_TRANSPORTS = ("data", "path", "file_url")
#: the frame rate given to a clip whose timestamps do not say (one frame, or unknown spacing)
DEFAULT_FPS = 1.0


def clip_fps(part: VideoPart) -> float:
    """The sampled frames' own rate (frames per second of video time); DEFAULT_FPS when unknown."""
    fps = sampled_fps(list(part.timestamps or []), len(part.frames))
    return fps if fps else DEFAULT_FPS


def encode_clip(frames: np.ndarray, fps: float, codec: str = "lossless", crf: int = 18) -> bytes:
    """The frames as MP4 bytes: H.264 in RGB at qp 0 (bit-exact on decode) or H.264 yuv at `crf`."""
    import av  # local import: PyAV ships with the core, but only this mode encodes

    frames = np.asarray(frames, dtype=np.uint8)
    if frames.ndim != 4 or frames.shape[-1] != 3 or len(frames) == 0:
        raise ValueError(f"a clip must be uint8 (T, H, W, 3) with T >= 1, got {tuple(frames.shape)}")
    height, width = int(frames.shape[1]), int(frames.shape[2])
    buffer = io.BytesIO()
    container = av.open(buffer, mode="w", format="mp4")
    try:
        if codec == "lossless":
            stream = container.add_stream("libx264rgb", rate=Fraction(fps).limit_denominator(1001))
            stream.pix_fmt, stream.options = "rgb24", {"qp": "0", "preset": "veryfast"}
        elif codec == "lossy":
            stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
            even = height % 2 == 0 and width % 2 == 0
            stream.pix_fmt = "yuv420p" if even else "yuv444p"
            stream.options = {"crf": str(crf), "preset": "veryfast"}
        else:
            raise ValueError(f"video_codec={codec!r} is not one of {', '.join(VIDEO_CODECS)}")
        stream.width, stream.height = width, height
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    finally:
        container.close()
    return buffer.getvalue()


def _jpeg_b64(frame: np.ndarray, quality: int) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.asarray(frame, dtype=np.uint8)).save(buffer, format="JPEG", quality=quality)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


class VideoEncoder:
    """Turns a decoded clip into one `video_url` content part, per the adapter's video args."""

    def __init__(
        self,
        mode: str = "video",
        codec: str = "lossless",
        crf: int = 18,
        transport: str = "data",
        jpeg_quality: int = 90,
        video_dir: Optional[str] = None,
    ) -> None:
        for name, value, allowed in (
            ("video_mode", mode, VIDEO_MODES),
            ("video_codec", codec, VIDEO_CODECS),
            ("video_transport", transport, VIDEO_TRANSPORTS),
        ):
            if value not in allowed:
                raise ModelArgsError(f"{name}={value!r} is not one of {', '.join(allowed)}")
        if mode == "frames" and transport != "data":
            raise ModelArgsError("video_mode=frames sends JPEG frames in a data: URL; use video_transport=data")
        self.mode, self.codec, self.crf = mode, codec, crf
        self.transport, self.jpeg_quality = transport, jpeg_quality
        self._dir = Path(video_dir) if video_dir else None
        self._own_dir = False  # a temp folder this encoder made (removed by close())

    def describe(self) -> dict[str, Any]:
        """What reaches the server (recorded in the model identity, hence in cache keys and results)."""
        if self.mode == "frames":
            return {"video_mode": "frames", "jpeg_quality": self.jpeg_quality}
        out: dict[str, Any] = {"video_mode": self.mode, "video_codec": self.codec}
        if self.codec == "lossy":
            out["video_crf"] = self.crf
        return out

    def _file(self, data: bytes) -> Path:
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="harness-clips-"))
            self._own_dir = True
        path = self._dir / f"{hashlib.sha256(data).hexdigest()[:32]}.mp4"
        if not path.exists():  # several request threads may write the same clip: unique temp names
            write_atomic(path, data)
        return path.resolve()

    def close(self) -> None:
        """Remove the temp folder of written clips, if this encoder made one (a given `video_dir` stays)."""
        if self._own_dir and self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir, self._own_dir = None, False

    def part(self, part: VideoPart) -> dict[str, Any]:
        """The `video_url` content part for one decoded clip."""
        frames = np.asarray(part.frames)
        if self.mode == "frames":
            url = "data:video/jpeg;base64," + ",".join(_jpeg_b64(f, self.jpeg_quality) for f in frames)
            return {"type": "video_url", "video_url": {"url": url}}
        data = encode_clip(frames, clip_fps(part), self.codec, self.crf)
        if self.transport == "data":
            url = "data:video/mp4;base64," + base64.b64encode(data).decode("ascii")
        elif self.transport == "path":
            url = str(self._file(data))
        else:
            url = self._file(data).as_uri()
        return {"type": "video_url", "video_url": {"url": url}}
