"""DecodedClip: the frames of one video part plus where they came from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class DecodedClip:
    """Decoded frames (T, H, W, 3) uint8 with the SOURCE frame index of each, clip-relative timestamps
    in seconds (position in the clip / fps), the video's fps and size, and the decoder that made them."""

    frames: np.ndarray
    indices: list[int]
    timestamps: list[float]
    fps: float
    source_size: tuple[int, int]
    decoder: str
    from_cache: bool = False

    @property
    def nbytes(self) -> int:
        """Size of the pixel data in bytes."""
        return int(self.frames.nbytes)
