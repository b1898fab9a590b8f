"""TempCloze-Mixed: per video, the ground truth plus one distractor of each dimension, seeded and balanced.

Written as `mixed_ids.json` in the release's format: `[{"stem", "S": "S/RandK.mp4", "A": ..., "P": "C/....mp4"}]`.
Balanced: within each dimension the three distractor types are used equally often (counts differ by at
most one); which video gets which type is a seeded shuffle.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Optional

import numpy as np

from .layout import DIMENSIONS, clip_file


def _rng(seed: int, what: str) -> np.random.Generator:
    digest = hashlib.sha256(f"tempcloze-mixed:{seed}:{what}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def select_mixed(stems: Sequence[str], seed: int, size: Optional[int] = 300) -> list[dict[str, str]]:
    """Choose `size` videos (all when None or fewer) and one distractor per dimension for each."""
    pool = sorted(set(stems))
    k = len(pool) if size is None else min(size, len(pool))
    picked = sorted(_rng(seed, "videos").choice(pool, size=k, replace=False).tolist()) if k else []
    rows: list[dict[str, str]] = [{"stem": s} for s in picked]
    for dim, names in DIMENSIONS.items():
        rng = _rng(seed, f"dim:{dim}")
        offset = int(rng.integers(0, len(names)))
        balanced = [names[(i + offset) % len(names)] for i in range(k)]
        order = rng.permutation(k)
        for row, j in zip(rows, order, strict=True):
            row[dim] = clip_file(balanced[j])
    return rows
