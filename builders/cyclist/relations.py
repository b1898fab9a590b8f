"""Per-frame spatial relations as the release computes them: unit displacement . direction > threshold."""

from __future__ import annotations

import numpy as np

from .constants import RELATIONS


def relationships(positions: np.ndarray, dirs: dict[str, list[float]], threshold: float) -> dict:
    """`relationships[rel][str(t)] = [[i, j], ...]`: object j is `rel` of object i at frame t.

    positions: (N, T, 2) ground-plane centres. Only x, y of each direction vector count (as in the
    release); above/below are present and empty. Pairs are ordered by i, then j.
    """
    n, T = positions.shape[:2]
    out: dict[str, dict[str, list]] = {"above": {}, "below": {}}
    diff = positions[None, :, :, :] - positions[:, None, :, :]  # (i, j, T, 2) = p_j - p_i
    norm = np.linalg.norm(diff, axis=-1)
    unit = diff / np.where(norm > 0, norm, 1.0)[..., None]
    off_diag = ~np.eye(n, dtype=bool)[:, :, None]
    for rel in RELATIONS:
        d = np.asarray(dirs[rel][:2], float)
        hold = ((unit @ d) > threshold) & off_diag & (norm > 0)  # (i, j, T)
        t_idx, i_idx, j_idx = np.nonzero(hold.transpose(2, 0, 1))
        bounds = np.searchsorted(t_idx, np.arange(T + 1))
        pairs = np.stack([i_idx, j_idx], 1).tolist()
        out[rel] = {str(t): pairs[bounds[t] : bounds[t + 1]] for t in range(T)}
    return out
