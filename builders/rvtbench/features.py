"""OpenCV visual features per instance (paper Sec. 2.2): colour histogram, optical flow, texture descriptor.

Computed once per frame (flow and gradients for the whole frame), then summarised inside each mask.
"""

from __future__ import annotations

import cv2
import numpy as np

HUE_BINS = 12
ORIENTATION_BINS = 8


class FrameFeatures:
    """Whole-frame quantities of one frame, shared by every instance in it."""

    def __init__(self, rgb: np.ndarray, previous_rgb: np.ndarray | None):
        self.hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
        gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        if previous_rgb is None:
            self.flow = np.zeros(gray.shape + (2,), dtype=np.float32)
        else:
            prev = cv2.cvtColor(previous_rgb, cv2.COLOR_RGB2GRAY)
            self.flow = cv2.calcOpticalFlowFarneback(prev, gray, None, 0.5, 3, 9, 3, 5, 1.1, 0)
        gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
        self.magnitude = np.hypot(gx, gy)
        self.orientation = np.mod(np.arctan2(gy, gx), np.pi)
        self.laplacian = cv2.Laplacian(gray, cv2.CV_32F)

    def instance(self, mask: np.ndarray) -> dict:
        """Features inside one boolean mask: hue histogram (saturated pixels), mean flow, texture."""
        hue = self.hsv[..., 0][mask].astype(np.float64)
        sat = self.hsv[..., 1][mask].astype(np.float64)
        hist, _ = np.histogram(hue, bins=HUE_BINS, range=(0, 180), weights=sat / 255.0 + 1e-6)
        hist = hist / hist.sum() if hist.sum() > 0 else hist
        flow = self.flow[mask]
        dx, dy = (float(v) for v in flow.mean(axis=0))
        mag = float(np.hypot(flow[:, 0], flow[:, 1]).mean())
        weights = self.magnitude[mask]
        orient, _ = np.histogram(
            self.orientation[mask], bins=ORIENTATION_BINS, range=(0, np.pi), weights=weights
        )
        orient = orient / orient.sum() if orient.sum() > 0 else orient
        texture = [float(self.laplacian[mask].var()), float(weights.mean()), *(float(v) for v in orient)]
        return {
            "color_histogram": [round(float(v), 4) for v in hist],
            "optical_flow": [round(dx, 4), round(dy, 4), round(mag, 4)],
            "texture": [round(v, 4) for v in texture],
        }


def dominant_hue_name(histogram: list[float]) -> str:
    """A colour word for the strongest hue bin (for descriptions when no VLM is configured)."""
    names = [
        "red",
        "orange",
        "yellow",
        "yellow-green",
        "green",
        "green",
        "cyan",
        "blue",
        "blue",
        "purple",
        "magenta",
        "pink",
    ]
    if not histogram or max(histogram) <= 0:
        return "gray"
    return names[int(np.argmax(histogram)) % len(names)]
