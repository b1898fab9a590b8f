"""Scripted RVTBench builder parts for fast tests: hue segmenter, row depth, box filling."""

from __future__ import annotations

import cv2
import numpy as np


class HueSegmenter:
    """One instance per saturated hue bin (12 bins) present on the first frame it appears in; no model."""

    name = "scripted"
    model_ref = "hue-bins"

    def __init__(self, min_pixels: int = 12, **_):
        self.min_pixels = min_pixels

    def segment(self, frames: np.ndarray, keyframe_interval: int):
        """{instance id: (T, H, W) bool}, {instance id: 1.0}: the segmenter part's contract."""
        hsv = np.stack([cv2.cvtColor(f, cv2.COLOR_RGB2HSV) for f in frames])
        saturated = (hsv[..., 1] > 80) & (hsv[..., 2] > 40)
        bins = hsv[..., 0].astype(int) * 12 // 180
        tracks, scores = {}, {}
        for b in range(12):
            masks = saturated & (bins == b)
            if masks.sum(axis=(1, 2)).max() >= self.min_pixels:
                tracks[b + 1] = masks
                scores[b + 1] = 1.0
        return tracks, scores


class RowDepth:
    """Distance grows towards the top of the image (a ground plane seen from above)."""

    name = "scripted"
    model_ref = "rows"
    inverse = False

    def __init__(self, **_):
        pass

    def depth(self, frames: np.ndarray) -> np.ndarray:
        """(T, H, W) distance: H - row."""
        t, h, w = frames.shape[:3]
        rows = (h - np.arange(h, dtype=np.float32))[:, None]
        return np.broadcast_to(rows, (t, h, w)).copy()


class FillBoxes:
    """The mask of a box is the box (test component; used only when a task configures it explicitly)."""

    name = "fill"
    model_ref = "fill"

    def __init__(self, **_):
        pass

    def masks(self, images: np.ndarray, boxes):
        """(T, H, W) bool: each frame's boxes filled."""
        t, h, w = images.shape[:3]
        out = np.zeros((t, h, w), dtype=bool)
        for k, per in enumerate(boxes):
            for x, y, bw, bh in per:
                out[
                    k, max(int(round(y)), 0) : int(round(y + bh)), max(int(round(x)), 0) : int(round(x + bw))
                ] = True
        return out
