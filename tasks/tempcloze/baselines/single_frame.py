"""`tempcloze_single_frame`: sees one frame per clip (its middle delivered frame) and picks the candidate
whose frame is most similar to the context frames: appearance only, no temporal order.
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.api import Request
from harness_tasks.tempcloze.baselines.features import (
    SimilarityBaseline,
    clips_by_label,
    cosine,
    frame_features,
)


class SingleFrameModel(SimilarityBaseline):
    """Single-frame appearance baseline (no language model); reads frames and clip labels only."""

    name = "tempcloze_single_frame"
    accepted_args: ClassVar[tuple[str, ...]] = ()
    evidence = "middle-frame similarity"

    def __init__(self, **model_args: Any):
        super().__init__(**model_args)

    @staticmethod
    def _middle(frames):
        return frame_features(frames[len(frames) // 2 : len(frames) // 2 + 1])[0]

    def scores(self, request: Request) -> dict[str, float]:
        """Mean similarity of each candidate's middle frame to the context clips' middle frames."""
        before, after, candidates = clips_by_label(request)
        context = [self._middle(c) for c in (before, after) if c is not None]
        out = {}
        for letter, frames in candidates.items():
            f = self._middle(frames)
            if context:
                out[letter] = sum(cosine(c, f) for c in context) / len(context)
        return out
