"""`rvtbench.box_to_mask.sam2`: masks from boxes with the SAM 2 image model (transformers), box prompts.

The explicit second stage of the `rvtbench_seg_boxes` pipeline (docs/benchmarks/rvtbench.md): a model that
only gives boxes (a text model's JSON, or a box model) is followed by this registered box-to-mask model, and
the results name the pipeline. Every box of a frame is one prompt; the frame's mask is the union of the
single-mask predictions. Any SAM 2 checkpoint by path or hub id (`Sam2Model` / `Sam2Processor`).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Sam2BoxToMask:
    """Box prompts -> masks per frame with `transformers.Sam2Model` (one forward pass per frame with boxes)."""

    name = "sam2"

    def __init__(self, model: str = "facebook/sam2.1-hiera-tiny", device: str = "cpu", **_: Any):
        from transformers import Sam2Model, Sam2Processor

        self.model_ref = model
        self.model = Sam2Model.from_pretrained(model).to(device).eval()
        self.processor = Sam2Processor.from_pretrained(model)
        self.device = device

    def masks(self, images: np.ndarray, boxes: list[list[list[float]]]) -> np.ndarray:
        """(T, H, W) bool masks for (T, H, W, 3) uint8 images and pixel [x, y, w, h] boxes per frame."""
        import torch

        t_total, h, w = images.shape[:3]
        if len(boxes) != t_total:
            raise ValueError(f"box-to-mask: {len(boxes)} box lists for {t_total} images")
        out = np.zeros((t_total, h, w), dtype=bool)
        for t, per in enumerate(boxes):
            prompts = [[x, y, x + bw, y + bh] for x, y, bw, bh in per if bw > 0 and bh > 0]
            if not prompts:
                continue
            inputs = self.processor(images=[images[t]], input_boxes=[prompts], return_tensors="pt").to(
                self.device
            )
            with torch.no_grad():
                pred = self.model(**inputs, multimask_output=False).pred_masks
            masks = self.processor.post_process_masks(
                pred.cpu(), inputs["original_sizes"].cpu(), binarize=True
            )[0]  # (boxes, 1, H, W)
            out[t] = masks[:, 0].numpy().astype(bool).any(axis=0)
        return out
