"""The public TempCloze evaluation's protocol facts: dimensions, clip names, letters, seeded candidate
order, rotations and the per-clip frame indices.

Pure functions (no I/O), so the order and indices a request will use can be computed and tested alone.
The public code keys the Progression dimension as "C" (its files live under `C/`); this plugin reports it
as "P" but seeds with "C", so candidate orders equal the public ones.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

DIMENSIONS: tuple[str, ...] = ("S", "A", "P")
DIMENSION_NAMES = {"S": "Semantic", "A": "Alignment", "P": "Progression"}
# Distractor clip names (release paths without ".mp4"), in the public code's listing order.
DISTRACTORS: dict[str, tuple[str, str, str]] = {
    "S": ("S/Rand1", "S/Rand2", "S/Rand3"),
    "A": ("A/Early", "A/Late", "A/Wide"),
    "P": ("C/Reverse", "C/Shuffle", "C/Loop"),
}
GT = "GT"
BEFORE, AFTER = "before", "after"
LETTERS = ("A", "B", "C", "D")
# The key the public code uses for a dimension in seeds and fixed_permutations.json.
PUBLIC_KEY = {"S": "S", "A": "A", "P": "C"}
DEFAULT_SEED = 42
NUM_FRAMES = 16
MAX_HEIGHT = 360


def canonical_dimension(key: object) -> object:
    """The plugin's dimension key for a key as written anywhere (the public code's 'C' is 'P'); other
    values (e.g. 'mixed', None) are returned unchanged."""
    return "P" if key == "C" else key


def kind_of(clip: str) -> str:
    """The distractor kind of a clip name: 'S/Rand2' -> 'Rand2', 'GT' -> 'GT' (the public option_map value)."""
    return clip.rsplit("/", 1)[-1]


def dimension_of(clip: str) -> str:
    """Which dimension a clip belongs to: 'GT' for the ground truth, else S, A or P."""
    if clip == GT:
        return GT
    for dim, names in DISTRACTORS.items():
        if clip in names or kind_of(clip) in {kind_of(n) for n in names}:
            return dim
    raise ValueError(f"'{clip}' is not a TempCloze candidate clip name (expected GT or one of {DISTRACTORS})")


def seeded_order(seed: int, stem: str, dimension: str | None, candidates: Sequence[str]) -> list[str]:
    """Candidates shuffled as the public evaluation does: random.Random("seed:stem:dim").shuffle.

    `candidates` is the unshuffled list [GT, d1, d2, d3]; `dimension` None gives the Mixed seed "seed:stem".
    """
    options = list(candidates)
    key = f"{seed}:{stem}" if dimension is None else f"{seed}:{stem}:{PUBLIC_KEY.get(dimension, dimension)}"
    random.Random(key).shuffle(options)
    return options


def rotate(options: Sequence[str], shift: int) -> list[str]:
    """Cyclic right shift by `shift` (the public reordering analysis: orders A, B, C, D = shifts 0..3)."""
    items = list(options)
    if not items:
        return items
    k = shift % len(items)
    return items[len(items) - k :] + items[: len(items) - k] if k else items


def public_frame_indices(total: int, count: int = NUM_FRAMES) -> list[int]:
    """The public sampler: n = min(count, total - 2), index_i = 1 + int((i + 0.5)(total - 2) / n).

    Returns [] for total <= 2, as the public code does (the harness's sampler instead falls back to
    untrimmed bins there; see docs/benchmarks/tempcloze.md).
    """
    if total <= 2:
        return []
    n = min(count, total - 2)
    return [1 + int((i + 0.5) * (total - 2) / n) for i in range(n)]


def letter_map(options: Sequence[str]) -> dict[str, str]:
    """Letter -> clip name for a presented order."""
    return {LETTERS[i]: clip for i, clip in enumerate(options)}
