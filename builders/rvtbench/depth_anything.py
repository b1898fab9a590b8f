"""`rvtbench.depth.depth_anything`: per-frame depth with Depth Anything V2 through transformers.

The model predicts relative inverse depth (disparity); the DT stores "distance" scaled to [0, 255] over the
video (dt.normalise_depth with inverse=True), so the paper's same-distance threshold of 10 applies.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class DepthAnything:
    """Any `AutoModelForDepthEstimation` checkpoint (default: Depth Anything V2 Small) by path or hub id."""

    name = "depth_anything"
    inverse = True  # outputs disparity: larger = closer

    def __init__(
        self,
        model: str = "depth-anything/Depth-Anything-V2-Small-hf",
        device: str = "cpu",
        batch_size: int = 4,
        **_: Any,
    ):
        from transformers import AutoImageProcessor, AutoModelForDepthEstimation

        self.model_ref = model
        self.processor = AutoImageProcessor.from_pretrained(model)
        self.model = AutoModelForDepthEstimation.from_pretrained(model).to(device).eval()
        self.device, self.batch_size = device, batch_size

    def depth(self, frames: np.ndarray) -> np.ndarray:
        """(T, H, W) float32 raw model depth at the frames' resolution."""
        import torch

        t_total, h, w = frames.shape[:3]
        out = np.zeros((t_total, h, w), dtype=np.float32)
        for start in range(0, t_total, self.batch_size):
            batch = list(frames[start : start + self.batch_size])
            inputs = self.processor(images=batch, return_tensors="pt").to(self.device)
            with torch.no_grad():
                pred = self.model(**inputs).predicted_depth  # (B, h', w')
            pred = torch.nn.functional.interpolate(
                pred[:, None], size=(h, w), mode="bilinear", align_corners=False
            )
            out[start : start + len(batch)] = pred[:, 0].cpu().numpy()
        return out
