"""The frame spec: how a task wants frames sampled from a video, typed, versioned and hashed.

The spec is owned by the task. A model adapter may only lower `max_frames` (see `FrameSpec.capped`).
Its `digest()` goes into every cache key and into results, so two runs with different sampling never
share a cached answer.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

FRAME_SPEC_VERSION = 1
#: the most frames a spec may ask of one clip (`count`, `max_frames`): a careless or hostile `count: 1000000000`
#: is refused when the YAML is read instead of building a billion positions
MAX_FRAME_COUNT = 10_000

Strategy = Literal["uniform", "segment", "fps", "all"]
DecoderName = Literal["auto", "decord", "pyav"]


class FrameSpec(BaseModel):
    """How to pick and shape frames.

    - `uniform`: `count` indices by linspace over the clip with both endpoints included (rounded).
    - `segment`: `count` equal bins, the midpoint of each: `trim + int((i + 0.5) * (N - 2*trim) / n)`.
    - `fps`: `rate` frames per second of video time.
    - `all`: every frame.
    `max_frames` caps any strategy (uniform re-sampling of the chosen indices); `max_side` bounds the
    longer image side (`max_height` the height) with the aspect ratio kept, never upscaling.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = FRAME_SPEC_VERSION
    strategy: Strategy = "uniform"
    count: Optional[int] = Field(default=None, ge=1, le=MAX_FRAME_COUNT)
    rate: Optional[float] = Field(default=None, gt=0, allow_inf_nan=False)
    max_frames: Optional[int] = Field(default=None, ge=1, le=MAX_FRAME_COUNT)
    max_side: Optional[int] = Field(default=None, ge=8)
    max_height: Optional[int] = Field(default=None, ge=8)
    trim: int = Field(default=0, ge=0)
    decoder: DecoderName = "auto"

    @model_validator(mode="after")
    def _check(self) -> FrameSpec:
        if self.strategy in ("uniform", "segment") and self.count is None:
            raise ValueError(f"frame spec strategy '{self.strategy}' needs 'count' (a number of frames)")
        if self.strategy == "fps" and self.rate is None:
            raise ValueError("frame spec strategy 'fps' needs 'rate' (frames per second)")
        return self

    def capped(self, max_frames: Optional[int]) -> FrameSpec:
        """The same spec with its frame budget lowered to `max_frames` (never raised)."""
        if max_frames is None:
            return self
        current = self.max_frames
        if self.strategy in ("uniform", "segment") and self.count is not None:
            current = min(self.count, current) if current else self.count
        if current is not None and current <= max_frames:
            return self
        return self.model_copy(update={"max_frames": max_frames})

    def canonical(self) -> dict:
        """A plain dict with every field, stable across runs (used in keys and results)."""
        return self.model_dump(mode="json")

    def digest(self) -> str:
        """Short stable hash of the spec."""
        blob = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def describe(self) -> str:
        """The spec as people write it: 'uniform, 32 frames, max side 448' (the decoder only when chosen)."""
        if self.strategy in ("uniform", "segment"):
            what = f"{self.strategy}, {_frames(self.count)}" + (f", trim {self.trim}" if self.trim else "")
        else:
            what = f"{self.rate:g} fps" if self.strategy == "fps" else "all frames"
        if self.max_frames:
            what += f", at most {_frames(self.max_frames)}"
        if self.max_side:
            what += f", max side {self.max_side}"
        if self.max_height:
            what += f", max height {self.max_height}"
        return what if self.decoder == "auto" else f"{what}, decoder {self.decoder}"


def _frames(n: Optional[int]) -> str:
    return "1 frame" if n == 1 else f"{n} frames"
