"""Cycle periods: products of a random choice of the prime factors of the scene's frame count (Sec. 2.1)."""

from __future__ import annotations

import numpy as np


def prime_factors(n: int) -> list[int]:
    """The prime factors of n with multiplicity, ascending (160 -> [2, 2, 2, 2, 2, 5])."""
    if n < 2:
        raise ValueError(f"prime_factors: the frame count must be at least 2, got {n}")
    out, d = [], 2
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    if n > 1:
        out.append(n)
    return out


def default_factor_range(num_frames: int) -> tuple[int, int]:
    """The release's default (5, 6) generalised: drop at most one factor (160 -> periods 32, 80, 160)."""
    k = len(prime_factors(num_frames))
    return max(1, k - 1), k


def possible_periods(num_frames: int, min_factors: int, max_factors: int) -> list[int]:
    """Every period `choose_period` can return, ascending; used to check settings up front."""
    primes = prime_factors(num_frames)
    out: set[int] = set()

    def walk(start: int, chosen: int, prod: int) -> None:
        if min_factors <= chosen <= max_factors:
            out.add(prod)
        if chosen == max_factors:
            return
        for i in range(start, len(primes)):
            walk(i + 1, chosen + 1, prod * primes[i])

    walk(0, 0, 1)
    return sorted(out)


def choose_period(rng: np.random.Generator, num_frames: int, min_factors: int, max_factors: int) -> int:
    """Pick k in [min, max] prime-factor entries without replacement and multiply them: a divisor of T."""
    primes = prime_factors(num_frames)
    k = int(rng.integers(min_factors, max_factors + 1))
    idx = rng.choice(len(primes), size=k, replace=False)
    return int(np.prod([primes[i] for i in idx]))
