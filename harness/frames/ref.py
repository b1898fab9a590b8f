"""What the frame layer reads of a video reference: `ClipRef`, the structural type that
harness.data.media.VideoRef satisfies. Frames sit below the data layer and never import it (an import of
harness.data.media here closed a cycle through the frames package at start-up)."""

from __future__ import annotations

from typing import Optional, Protocol


class ClipRef(Protocol):
    """A video (file or frame folder) and the segments of it a clip takes: what decoding and frame-cache keys
    need of a `VideoRef`."""

    path: str
    fps: Optional[float]

    def source_indices(self, num_frames: int, fps: float) -> list[int]:
        """The clip's source frame indices in a video of `num_frames` frames at `fps`."""

    def clip_key(self) -> list:
        """The clip's segments as a JSON-able key (no path, no label)."""
