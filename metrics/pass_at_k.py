"""pass@k: the unbiased estimator 1 - C(n - c, k) / C(n, k) of Chen et al. (2021), computed exactly."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _one(n: int, c: int, k: int) -> float:
    if not (isinstance(n, int) and isinstance(c, int) and isinstance(k, int)):
        raise ValueError(f"pass_at_k: n, c and k must be integers, got n={n!r}, c={c!r}, k={k!r}")
    if n < 1 or not 0 <= c <= n:
        raise ValueError(f"pass_at_k: expected n >= 1 samples and 0 <= c <= n correct, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"pass_at_k: expected 1 <= k <= n, got k={k} with n={n} samples")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_at_k(n: int | Sequence[int], c: int | Sequence[int], k: int) -> float:
    """pass@k for one problem (n samples, c correct) or the mean over problems (sequences n and c)."""
    if isinstance(n, Sequence) or isinstance(c, Sequence):
        if not (isinstance(n, Sequence) and isinstance(c, Sequence)) or len(n) != len(c):
            raise ValueError("pass_at_k: pass n and c both as integers, or both as lists of equal length")
        if len(n) == 0:
            return float("nan")
        return sum(_one(int(a), int(b), k) for a, b in zip(n, c, strict=False)) / len(n)
    return _one(n, c, k)
