"""Image measurements for the filters: sharpness (variance of the Laplacian) and motion (mean Farnebaeck
optical-flow magnitude, in pixels per source frame at 256 px frame height, as the public filter measures it).

Motion is measured on pairs of consecutive source frames spread over the video (not on every frame), so a
60 s 720p source costs a few hundred low-resolution frames; a gap's motion is the mean over the pairs
inside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

FLOW_HEIGHT = 256
# Farnebaeck parameters of the public filter: pyr_scale, levels, winsize, iterations, poly_n, poly_sigma, flags
FARNEBACK_PARAMS = (0.5, 3, 15, 3, 5, 1.2, 0)


def to_gray(frame: np.ndarray) -> np.ndarray:
    """RGB uint8 (H, W, 3) to grayscale uint8 (H, W)."""
    return cv2.cvtColor(np.ascontiguousarray(frame), cv2.COLOR_RGB2GRAY)


def laplacian_variance(frames: np.ndarray | list[np.ndarray]) -> float:
    """Mean over frames of the variance of the Laplacian of the grayscale frame (higher = sharper)."""
    values = [float(cv2.Laplacian(to_gray(f), cv2.CV_64F).var()) for f in frames]
    if not values:
        raise ValueError("laplacian_variance: no frames given")
    return float(np.mean(values))


def resize_to_height(gray: np.ndarray, height: int) -> np.ndarray:
    """Scale a frame to `height` rows, keeping the aspect ratio (up or down, as the public filter does)."""
    h, w = gray.shape[:2]
    if h == height:
        return gray
    width = max(1, int(round(height * w / h)))
    interp = cv2.INTER_AREA if h > height else cv2.INTER_LINEAR
    return cv2.resize(gray, (width, height), interpolation=interp)


def flow_magnitude(prev: np.ndarray, nxt: np.ndarray, height: int = FLOW_HEIGHT) -> float:
    """Mean Farnebaeck flow magnitude between two RGB frames, both scaled to `height` rows first."""
    a = resize_to_height(to_gray(prev), height)
    b = resize_to_height(to_gray(nxt), height)
    flow = cv2.calcOpticalFlowFarneback(a, b, None, *FARNEBACK_PARAMS)
    return float(np.sqrt(flow[..., 0] ** 2 + flow[..., 1] ** 2).mean())


def pair_starts(
    num_frames: int,
    fps: float,
    pairs_per_second: float,
    min_gap_frames: int,
    min_pairs: int = 4,
    window: tuple[float, float] = (0.25, 0.75),
) -> list[int]:
    """First frames of the consecutive-frame pairs to measure: about `pairs_per_second` per second, only
    inside the central `window` where any gap lies (so half the video is never decoded), dense enough
    that the shortest admissible gap holds at least `min_pairs` pairs."""
    step = max(1, int(round(fps / pairs_per_second)))
    step = max(1, min(step, (min_gap_frames - 1) // max(1, min_pairs)))
    first = max(0, math.ceil(window[0] * num_frames))
    stop = min(num_frames - 1, math.floor(window[1] * num_frames) - 1)
    return list(range(first, max(first, stop), step))


@dataclass
class MotionProbe:
    """Frames of measured pairs (i, i+1) for each start i, with flow magnitudes memoised per pair."""

    starts: list[int]
    frames: np.ndarray  # (2 * len(starts), H, W, 3): frame i then i + 1 for each start
    height: int = FLOW_HEIGHT
    _memo: dict[int, float] = field(default_factory=dict)

    def pair_motion(self, k: int) -> float:
        """Flow magnitude of the k-th pair."""
        if k not in self._memo:
            self._memo[k] = flow_magnitude(self.frames[2 * k], self.frames[2 * k + 1], self.height)
        return self._memo[k]

    def gap_motion(self, a: int, b: int) -> float:
        """Mean flow magnitude over the pairs lying wholly inside [a, b); NaN when none does."""
        inside = [k for k, s in enumerate(self.starts) if a <= s and s + 1 < b]
        if not inside:
            return math.nan
        return float(np.mean([self.pair_motion(k) for k in inside]))

    def sharpness(self, max_frames: int = 10) -> float:
        """Variance of the Laplacian over up to `max_frames` frames spread over the measured pairs."""
        firsts = self.frames[0::2]
        pick = np.linspace(0, len(firsts) - 1, num=min(max_frames, len(firsts))).round().astype(int)
        return laplacian_variance([firsts[i] for i in pick])
