"""Clip reading and frame features shared by the TempCloze baseline models.

Features are tiny colour thumbnails (16x16x3), mean-centred and L2-normalised, so their dot product is a
correlation that ignores global brightness; cheap, deterministic and dependency-free (the public edge
baseline uses DINOv2 features instead; see docs/benchmarks/tempcloze.md).
"""

from __future__ import annotations

import json
import re
from typing import ClassVar, Optional

import cv2
import numpy as np

from harness.api import Capabilities, Model, Request, Response, VideoPart

THUMB = 16
_CANDIDATE = re.compile(r"^\[Candidate ([A-Z])\]$")


def clips_by_label(
    request: Request,
) -> tuple[Optional[np.ndarray], Optional[np.ndarray], dict[str, np.ndarray]]:
    """(BEGINNING frames, END frames, {letter: candidate frames}) from the request's labelled video parts."""
    before = after = None
    candidates: dict[str, np.ndarray] = {}
    for message in request.messages:
        for part in message.content:
            if not isinstance(part, VideoPart) or part.frames is None or len(part.frames) == 0:
                continue
            label = (part.label or "").strip()
            if label == "[BEGINNING]":
                before = part.frames
            elif label == "[END]":
                after = part.frames
            else:
                m = _CANDIDATE.match(label)
                if m:
                    candidates[m.group(1)] = part.frames
    return before, after, candidates


def frame_features(frames: np.ndarray) -> np.ndarray:
    """(T, D) unit vectors: each frame as a mean-centred 16x16 RGB thumbnail."""
    out = []
    for f in frames:
        thumb = cv2.resize(np.ascontiguousarray(f), (THUMB, THUMB), interpolation=cv2.INTER_AREA)
        v = thumb.astype(np.float64).ravel()
        v -= v.mean()
        norm = np.linalg.norm(v)
        out.append(v / norm if norm > 0 else v)
    return np.stack(out)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (0 when either is zero)."""
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return float(a @ b / (na * nb)) if na > 0 and nb > 0 else 0.0


def linear_probabilities(scores: dict[str, float]) -> dict[str, float]:
    """Scores shifted to be non-negative and normalised to sum 1 (uniform when all equal): the public
    edge baseline's 'linear probability'."""
    vals = np.array(list(scores.values()), dtype=np.float64)
    if vals.min() < 0:
        vals = vals - vals.min()
    total = vals.sum()
    probs = vals / total if total > 0 else np.full(len(vals), 1.0 / len(vals))
    return {k: round(float(p), 6) for k, p in zip(scores, probs, strict=True)}


def answer(scores: dict[str, float], why: str) -> Response:
    """The JSON answer for the best-scoring letter (ties: the earliest letter), with scores attached."""
    if not scores:
        return Response(text="", structured={"error": why})
    best = max(sorted(scores), key=lambda k: scores[k])
    text = json.dumps({"answer": best, "reason": why})
    rounded = {k: round(v, 6) for k, v in sorted(scores.items())}
    return Response(text=text, structured={"scores": rounded, "probabilities": linear_probabilities(rounded)})


class SimilarityBaseline(Model):
    """A non-LLM baseline that scores each candidate clip by frame similarity to the context and answers the
    best one; it reads frames and clip labels only. Subclasses give `scores` and `evidence`."""

    capabilities = Capabilities(video=True, multi_video=True, images=False)
    #: reads labelled context and candidate clips: any other task would get empty (invalid) answers
    answer_types: ClassVar[frozenset[str]] = frozenset({"clip_choice"})
    evidence: ClassVar[str] = "frame similarity"  # what its answers say they rest on

    def scores(self, request: Request) -> dict[str, float]:
        """A score per candidate letter (empty when the request has no labelled context and candidates)."""
        raise NotImplementedError

    def generate(self, requests: list[Request]) -> list[Response]:
        """One JSON answer per request (empty, hence invalid, when no labelled clips arrive)."""
        out = []
        for r in requests:
            scores = self.scores(r)
            why = self.evidence if scores else "no labelled context and candidate clips in the request"
            out.append(answer(scores, why))
        return out
