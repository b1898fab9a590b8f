"""`tempcloze_edge`: picks the candidate whose boundary frames best continue the context.

Score of a candidate = mean of cos(BEGINNING's last E frames, candidate's first E frames) and
cos(candidate's last E frames, END's first E frames), each side's features averaged over its E frames
(E = 4 by default, as the public edge baseline). With one context clip only, that side alone.
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.api import ModelArgsError, Request
from harness_tasks.tempcloze.baselines.features import (
    SimilarityBaseline,
    clips_by_label,
    cosine,
    frame_features,
)


class EdgeModel(SimilarityBaseline):
    """Boundary-continuity baseline (no language model); reads frames and clip labels only."""

    name = "tempcloze_edge"
    accepted_args: ClassVar[tuple[str, ...]] = ("edge_frames",)
    evidence = "boundary-frame similarity"

    def __init__(self, edge_frames: int = 4, **model_args: Any):
        try:
            edge = int(edge_frames)
        except (TypeError, ValueError):
            raise ModelArgsError(f"model '{self.name}': edge_frames={edge_frames!r} is not a whole number") from None
        if edge < 1:
            raise ModelArgsError(f"model '{self.name}': edge_frames must be at least 1, got {edge_frames}")
        super().__init__(edge_frames=edge, **model_args)
        self.edge = edge

    def scores(self, request: Request) -> dict[str, float]:
        """Edge score per candidate letter."""
        before, after, candidates = clips_by_label(request)
        left = frame_features(before[-self.edge :]).mean(0) if before is not None else None
        right = frame_features(after[: self.edge]).mean(0) if after is not None else None
        out = {}
        for letter, frames in candidates.items():
            feats = frame_features(frames)
            sides = []
            if left is not None:
                sides.append(cosine(left, feats[: self.edge].mean(0)))
            if right is not None:
                sides.append(cosine(feats[-self.edge :].mean(0), right))
            if sides:
                out[letter] = sum(sides) / len(sides)
        return out
