"""Pure interval rules of TempCloze: the gap, and the distractors of each dimension, in source frames.

Everything here is integer frame arithmetic on a video of `num_frames` frames (T = num_frames / fps), so
file clips and virtual clips are cut at exactly the same frames. Half-open spans [start, end).
- Gap M = [a, b): lies wholly inside [0.25 T, 0.75 T] and lasts 20-40 % of T.
- Semantic: same length as the gap, outside it (the paper's rule), or the release's rule (option).
- Alignment: Advanced [a - d, b - d], Deferred [a + d, b + d], Expanded [a - d, b + d], d = l/2 in [0.1T, 0.2T].
- Progression: Reverse (gap backwards), Reorder (thirds b, c, a), Repeat (middle third three times).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Optional

import numpy as np

SemanticRule = Literal["paper", "release"]


@dataclass(frozen=True)
class Piece:
    """One played span of the source: frames [start, end), optionally reversed, played `repeat` times."""

    start: int
    end: int
    reverse: bool = False
    repeat: int = 1

    def indices(self) -> list[int]:
        """The source frame indices this piece plays, in order."""
        idx = list(range(self.start, self.end))
        if self.reverse:
            idx.reverse()
        return idx * self.repeat


ClipPlan = tuple[Piece, ...]


def plan_indices(plan: ClipPlan) -> list[int]:
    """Source frame indices of a whole clip plan, in play order."""
    return [i for piece in plan for i in piece.indices()]


@dataclass(frozen=True)
class GapRules:
    """The paper's sampling parameters (defaults) plus the semantic rule and distinctness margin."""

    center_lo: float = 0.25
    center_hi: float = 0.75
    min_frac: float = 0.2
    max_frac: float = 0.4
    min_gap_frames: int = 6
    semantic: SemanticRule = "paper"
    semantic_min_separation: float = 0.25  # paper rule: starts at least this fraction of l apart
    release_min_frac: float = 0.2  # release rule: each clip at least this fraction of T long
    max_draws: int = 200  # feasibility redraws per gap attempt (cheap, no flow)


@dataclass(frozen=True)
class ItemPlan:
    """A TempCloze item over one source: the gap and every clip as a plan of source-frame pieces."""

    num_frames: int
    gap: tuple[int, int]
    clips: dict[str, ClipPlan]
    attempts: int


class GapRejected(Exception):
    """No acceptable gap for a video; `reason` is the counted manifest reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def item_rng(seed: int, stem: str) -> np.random.Generator:
    """A generator that depends only on (seed, stem): results do not depend on order or workers."""
    digest = hashlib.sha256(f"tempcloze:{seed}:{stem}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def gap_length_bounds(num_frames: int, rules: GapRules) -> tuple[int, int]:
    """Smallest and largest gap length in frames (20-40 % of T, and fitting the central window)."""
    lo = max(math.ceil(rules.min_frac * num_frames), rules.min_gap_frames)
    window = math.floor(rules.center_hi * num_frames) - math.ceil(rules.center_lo * num_frames)
    hi = min(math.floor(rules.max_frac * num_frames), window)
    return lo, hi


def sample_gap(num_frames: int, rules: GapRules, rng: np.random.Generator) -> tuple[int, int]:
    """Draw M = [a, b): length uniform in [0.2T, 0.4T], placed uniformly inside [0.25T, 0.75T]."""
    lo, hi = gap_length_bounds(num_frames, rules)
    if hi < lo:
        raise GapRejected(
            "too_short", f"{num_frames} frames leave no gap of {lo}+ frames inside the central window"
        )
    length = int(rng.integers(lo, hi + 1))
    first = math.ceil(rules.center_lo * num_frames)
    last = math.floor(rules.center_hi * num_frames) - length
    a = int(rng.integers(first, last + 1))
    return a, a + length


def alignment_offset(gap_len: int, num_frames: int) -> int:
    """delta = l/2 (rounded), clipped into [0.1T, 0.2T] and to at least one frame."""
    lo = math.ceil(0.1 * num_frames)
    hi = max(lo, math.floor(0.2 * num_frames))
    return max(1, min(max(round(gap_len / 2), lo), hi))


def _clip_span(start: int, end: int, num_frames: int) -> tuple[int, int]:
    return max(0, start), min(num_frames, end)


def alignment_clips(a: int, b: int, num_frames: int) -> dict[str, ClipPlan]:
    """Advanced (A/Early), Deferred (A/Late), Expanded (A/Wide): the gap shifted or widened by delta."""
    d = alignment_offset(b - a, num_frames)
    spans = {
        "A/Early": _clip_span(a - d, b - d, num_frames),
        "A/Late": _clip_span(a + d, b + d, num_frames),
        "A/Wide": _clip_span(a - d, b + d, num_frames),
    }
    return {name: (Piece(s, e),) for name, (s, e) in spans.items()}


def thirds(a: int, b: int) -> tuple[int, int]:
    """Cut points of the gap into thirds: [a, t1), [t1, t2), [t2, b)."""
    n = b - a
    return a + round(n / 3), a + round(2 * n / 3)


def progression_clips(a: int, b: int) -> dict[str, ClipPlan]:
    """Reverse (C/Reverse), Reorder b, c, a (C/Shuffle), Repeat middle third x3 (C/Loop)."""
    t1, t2 = thirds(a, b)
    return {
        "C/Reverse": (Piece(a, b, reverse=True),),
        "C/Shuffle": (Piece(t1, t2), Piece(t2, b), Piece(a, t1)),
        "C/Loop": (Piece(t1, t2, repeat=3),),
    }


def context_clips(a: int, b: int, num_frames: int) -> dict[str, ClipPlan]:
    """before = [0, a), GT = [a, b), after = [b, T)."""
    return {"before": (Piece(0, a),), "GT": (Piece(a, b),), "after": (Piece(b, num_frames),)}


def _pick(ranges: list[tuple[int, int]], rng: np.random.Generator) -> Optional[int]:
    """Uniform integer from a union of inclusive ranges, or None when it is empty."""
    ranges = [(lo, hi) for lo, hi in ranges if hi >= lo]
    total = sum(hi - lo + 1 for lo, hi in ranges)
    if total <= 0:
        return None
    k = int(rng.integers(0, total))
    for lo, hi in ranges:
        if k <= hi - lo:
            return lo + k
        k -= hi - lo + 1
    return None  # unreachable


def _remove(ranges: list[tuple[int, int]], lo: int, hi: int) -> list[tuple[int, int]]:
    out = []
    for r_lo, r_hi in ranges:
        if r_hi < lo or r_lo > hi:
            out.append((r_lo, r_hi))
            continue
        if r_lo < lo:
            out.append((r_lo, lo - 1))
        if r_hi > hi:
            out.append((hi + 1, r_hi))
    return out


def semantic_clips_paper(
    a: int, b: int, num_frames: int, rng: np.random.Generator, min_separation: float = 0.25
) -> Optional[dict[str, ClipPlan]]:
    """Three clips of the gap's length outside the gap (never overlapping it), starts pairwise at least
    `min_separation * l` apart so the candidates differ; None when the video has no room for three."""
    length = b - a
    sep = max(1, round(min_separation * length))
    free = [(0, a - length), (b, num_frames - length)]
    starts = []
    for _ in range(3):
        s = _pick(free, rng)
        if s is None:
            return None
        starts.append(s)
        free = _remove(free, s - sep + 1, s + sep - 1)
    return {f"S/Rand{i + 1}": (Piece(s, s + length),) for i, s in enumerate(starts)}


def semantic_clips_release(
    a: int, b: int, num_frames: int, rng: np.random.Generator, min_frac: float = 0.2
) -> Optional[dict[str, ClipPlan]]:
    """The public code's rule: each clip independently from before or after the gap, length uniform in
    [0.2 T, region], position uniform in the region (clips may overlap each other, never the gap).
    Only regions at least 0.2 T long are used; an exact duplicate of an earlier clip is redrawn."""
    min_len = max(1, math.ceil(min_frac * num_frames))
    regions = [(lo, hi) for lo, hi in ((0, a), (b, num_frames)) if hi - lo >= min_len]
    if not regions:
        return None
    chosen: list[tuple[int, int]] = []
    for _ in range(3):
        for _try in range(50):
            lo, hi = regions[int(rng.integers(0, len(regions)))]
            length = int(rng.integers(min_len, hi - lo + 1))
            start = int(rng.integers(lo, hi - length + 1))
            if (start, start + length) not in chosen:
                break
        else:
            return None
        chosen.append((start, start + length))
    return {f"S/Rand{i + 1}": (Piece(s, e),) for i, (s, e) in enumerate(chosen)}


def draw_feasible_gap(
    num_frames: int, rules: GapRules, rng: np.random.Generator
) -> tuple[tuple[int, int], dict[str, ClipPlan]]:
    """Draw a gap together with its semantic distractors, redrawing gaps that leave no room for them."""
    for _ in range(rules.max_draws):
        a, b = sample_gap(num_frames, rules, rng)
        if rules.semantic == "paper":
            sem = semantic_clips_paper(a, b, num_frames, rng, rules.semantic_min_separation)
        else:
            sem = semantic_clips_release(a, b, num_frames, rng, rules.release_min_frac)
        if sem is not None:
            return (a, b), sem
    raise GapRejected(
        "no_semantic_room",
        f"no gap among {rules.max_draws} draws leaves room for three {rules.semantic}-rule semantic clips",
    )


def plan_item(
    num_frames: int,
    rules: GapRules,
    rng: np.random.Generator,
    accept_gap: Callable[[int, int], bool] = lambda a, b: True,
    max_tries: int = 3,
) -> ItemPlan:
    """Sample a gap (up to `max_tries` times until `accept_gap`, the motion check, passes) and build all
    twelve clips. Raises GapRejected with reason 'no_motion' after the last failed try."""
    for attempt in range(1, max_tries + 1):
        (a, b), semantic = draw_feasible_gap(num_frames, rules, rng)
        if not accept_gap(a, b):
            continue
        clips = context_clips(a, b, num_frames)
        clips.update(semantic)
        clips.update(alignment_clips(a, b, num_frames))
        clips.update(progression_clips(a, b))
        return ItemPlan(num_frames=num_frames, gap=(a, b), clips=clips, attempts=attempt)
    raise GapRejected("no_motion", f"the gap showed too little motion in {max_tries} tries")
