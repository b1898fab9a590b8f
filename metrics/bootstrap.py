"""Percentile bootstrap confidence intervals, optionally clustered (resample whole videos, not questions).

Questions about the same video are correlated; resampling clusters keeps that correlation in every
replicate, which widens the interval to its honest size.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

_CHUNK = 2_000_000  # cells of the (resamples x items) index matrix built at once


def bootstrap_ci(
    values: Sequence[float],
    clusters: Sequence[Hashable] | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    statistic: Callable[[np.ndarray], float] | None = None,
) -> tuple[float, float]:
    """(low, high) percentile bootstrap interval of `statistic` (default: the mean) of `values`.

    With `clusters` (one id per value) whole clusters are drawn with replacement and the statistic is taken
    over all items of the drawn clusters. Deterministic for a given seed; (nan, nan) for empty input.
    """
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"bootstrap_ci: values must be a 1-D sequence of floats, got shape {arr.shape}")
    if np.isnan(arr).any():
        raise ValueError(
            "bootstrap_ci: values contain NaN; drop or score failed samples before bootstrapping"
        )
    if not 0 < confidence < 1:
        raise ValueError(f"bootstrap_ci: confidence must be in (0, 1), got {confidence}")
    if int(n_resamples) < 1:
        raise ValueError(f"bootstrap_ci: n_resamples must be >= 1, got {n_resamples}")
    if clusters is not None and len(clusters) != len(arr):
        raise ValueError(
            f"bootstrap_ci: got {len(clusters)} cluster ids for {len(arr)} values; expected one per value"
        )
    if arr.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    stats = _replicates(arr, clusters, int(n_resamples), rng, statistic)
    alpha = (1 - confidence) / 2
    low, high = np.percentile(stats, [100 * alpha, 100 * (1 - alpha)])
    return float(low), float(high)


def _replicates(
    arr: np.ndarray,
    clusters: Sequence[Hashable] | None,
    n_resamples: int,
    rng: np.random.Generator,
    statistic: Callable[[np.ndarray], float] | None,
) -> np.ndarray:
    if clusters is None:
        n = arr.size
        if statistic is None:
            rows = max(1, _CHUNK // n)
            out = [
                arr[rng.integers(0, n, size=(min(rows, n_resamples - s), n))].mean(axis=1)
                for s in range(0, n_resamples, rows)
            ]
            return np.concatenate(out)
        return np.array([statistic(arr[rng.integers(0, n, size=n)]) for _ in range(n_resamples)], dtype=float)
    ids: dict[Hashable, int] = {}
    codes = np.array([ids.setdefault(c, len(ids)) for c in clusters], dtype=np.int64)
    k = len(ids)
    if statistic is None:
        sums = np.bincount(codes, weights=arr, minlength=k)
        counts = np.bincount(codes, minlength=k).astype(float)
        rows = max(1, _CHUNK // k)
        out = []
        for s in range(0, n_resamples, rows):
            draw = rng.integers(0, k, size=(min(rows, n_resamples - s), k))
            out.append(sums[draw].sum(axis=1) / counts[draw].sum(axis=1))
        return np.concatenate(out)
    order = np.argsort(codes, kind="stable")
    members = np.split(order, np.cumsum(np.bincount(codes, minlength=k))[:-1])
    reps = []
    for _ in range(n_resamples):
        draw = rng.integers(0, k, size=k)
        reps.append(statistic(arr[np.concatenate([members[c] for c in draw])]))
    return np.asarray(reps, dtype=float)
