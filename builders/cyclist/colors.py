"""Colour helpers: vectorised RGB <-> HSV and hue interpolation for recolor cycles."""

from __future__ import annotations

import numpy as np


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """RGB in [0, 1] (..., 3) -> HSV with hue in [0, 1) (..., 3)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx, mn = rgb.max(-1), rgb.min(-1)
    delta = mx - mn
    safe = np.where(delta > 0, delta, 1.0)
    h = np.where(
        mx == r, ((g - b) / safe) % 6.0, np.where(mx == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0)
    )
    h = np.where(delta > 0, h / 6.0, 0.0)
    s = np.where(mx > 0, delta / np.where(mx > 0, mx, 1.0), 0.0)
    return np.stack([h % 1.0, s, mx], axis=-1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """HSV with hue in [0, 1) (..., 3) -> RGB in [0, 1] (..., 3)."""
    h, s, v = hsv[..., 0] % 1.0, hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0).astype(int) % 6
    f = h * 6.0 - np.floor(h * 6.0)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    table = np.stack(
        [np.stack(c, -1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))]
    )
    return np.take_along_axis(table, i[None, ..., None].repeat(3, -1), 0)[0]


def hue_interpolate(rgb_a: np.ndarray, rgb_b: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Interpolate from colour a (u=0) to b (u=1) along the shorter hue arc; saturation and value linearly.

    rgb_a, rgb_b: (3,) or (..., 3); u: (...,). Gray (no hue) takes the other colour's hue, so gray <-> red
    fades in saturation instead of sweeping through unrelated hues.
    """
    a, b = rgb_to_hsv(np.asarray(rgb_a, float)), rgb_to_hsv(np.asarray(rgb_b, float))
    u = np.asarray(u, float)[..., None]
    ha = np.where(a[..., 1] > 1e-6, a[..., 0], b[..., 0])
    hb = np.where(b[..., 1] > 1e-6, b[..., 0], ha)
    dh = (hb - ha + 0.5) % 1.0 - 0.5
    hsv = a + (b - a) * u
    hsv[..., 0] = (ha[..., None] + dh[..., None] * u)[..., 0] % 1.0
    return np.clip(hsv_to_rgb(hsv), 0.0, 1.0)
