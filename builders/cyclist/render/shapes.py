"""Analytic ray casts against the four unit meshes (object-local coordinates, scale 1).

Sphere radius 1; cube [-1, 1]^3; cylinder radius 1, z in [-1, 1]; cone base radius 1 at z = -1, apex at
z = +1. Each function takes one ray origin o (3,) and directions D (M, 3) and returns the hit distance
t (M,) (inf where missed) and the local normal (M, 3).
"""

from __future__ import annotations

import numpy as np

INF = np.inf


def _roots(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    disc = b * b - 4.0 * a * c
    ok = (disc >= 0) & (np.abs(a) > 1e-12)
    sq = np.sqrt(np.where(ok, disc, 0.0))
    a2 = np.where(ok, 2.0 * a, 1.0)
    return np.where(ok, (-b - sq) / a2, INF), np.where(ok, (-b + sq) / a2, INF)


def _first(cands: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    stack = np.stack([np.where(c > 1e-6, c, INF) for c in cands])
    idx = stack.argmin(0)
    return np.take_along_axis(stack, idx[None], 0)[0], idx


def sphere(o: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit sphere."""
    t0, t1 = _roots((D * D).sum(1), 2.0 * (D @ o), np.full(len(D), o @ o - 1.0))
    t, _ = _first([t0, t1])
    return t, o + D * np.where(np.isfinite(t), t, 0.0)[:, None]


def cube(o: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned cube [-1, 1]^3 by the slab method."""
    safe = np.where(np.abs(D) > 1e-12, D, 1e-12)
    t1, t2 = (-1.0 - o) / safe, (1.0 - o) / safe
    near, far = np.minimum(t1, t2), np.maximum(t1, t2)
    axis = near.argmax(1)
    tmin, tmax = near.max(1), far.min(1)
    hit = (tmax >= tmin) & (tmin > 1e-6)
    t = np.where(hit, tmin, INF)
    n = np.zeros_like(D)
    rows = np.arange(len(D))
    n[rows, axis] = -np.sign(safe[rows, axis])
    return t, n


def cylinder(o: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Capped cylinder of radius 1, z in [-1, 1]."""
    dx, dy, dz = D[:, 0], D[:, 1], D[:, 2]
    t0, t1 = _roots(
        dx * dx + dy * dy, 2.0 * (o[0] * dx + o[1] * dy), np.full(len(D), o[0] ** 2 + o[1] ** 2 - 1.0)
    )
    side = [np.where(np.abs(o[2] + tt * dz) <= 1.0, tt, INF) for tt in (t0, t1)]
    sdz = np.where(np.abs(dz) > 1e-12, dz, 1e-12)
    caps = []
    for zc in (-1.0, 1.0):
        tc = (zc - o[2]) / sdz
        x, y = o[0] + tc * dx, o[1] + tc * dy
        caps.append(np.where(x * x + y * y <= 1.0, tc, INF))
    t, idx = _first(side + caps)
    p = o + D * np.where(np.isfinite(t), t, 0.0)[:, None]
    n = np.stack([p[:, 0], p[:, 1], np.zeros(len(D))], 1)
    n[idx == 2] = (0.0, 0.0, -1.0)
    n[idx == 3] = (0.0, 0.0, 1.0)
    return t, n


def cone(o: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cone: x^2 + y^2 = (k (1 - z))^2 with k = 1/2, z in [-1, 1], and its base disk at z = -1."""
    k2 = 0.25
    dx, dy, dz = D[:, 0], D[:, 1], D[:, 2]
    w = 1.0 - o[2]
    a = dx * dx + dy * dy - k2 * dz * dz
    b = 2.0 * (o[0] * dx + o[1] * dy + k2 * w * dz)
    c = np.full(len(D), o[0] ** 2 + o[1] ** 2 - k2 * w * w)
    t0, t1 = _roots(a, b, c)
    side = []
    for tt in (t0, t1):
        z = o[2] + tt * dz
        side.append(np.where((z >= -1.0) & (z <= 1.0), tt, INF))
    sdz = np.where(np.abs(dz) > 1e-12, dz, 1e-12)
    tb = (-1.0 - o[2]) / sdz
    x, y = o[0] + tb * dx, o[1] + tb * dy
    base = np.where(x * x + y * y <= 1.0, tb, INF)
    t, idx = _first(side + [base])
    p = o + D * np.where(np.isfinite(t), t, 0.0)[:, None]
    n = np.stack([p[:, 0], p[:, 1], k2 * (1.0 - p[:, 2])], 1)
    n[idx == 2] = (0.0, 0.0, -1.0)
    return t, n


SHAPES = {"Sphere": sphere, "Cube": cube, "Cylinder": cylinder, "Cone": cone}
