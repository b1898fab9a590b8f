"""`rvtbench.segmenter.sam2`: instance masks with SAM 2's video predictor through transformers (paper eq. 2).

On every key frame (every t_s frames) a grid of point prompts proposes masks; proposals that are large
enough and not already covered by a tracked instance (IoU <= 0.5) become new instances, added to the video
session as mask prompts on that frame. Between key frames SAM 2's memory-based tracking propagates every
instance. Load any SAM 2 checkpoint by path or hub id (`Sam2VideoModel` / `Sam2VideoProcessor`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

NEW_INSTANCE_IOU = 0.5


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = np.count_nonzero(a | b)
    return np.count_nonzero(a & b) / union if union else 0.0


class Sam2Segmenter:
    """Key-frame discovery with a point grid, then tracking with the SAM 2 video predictor."""

    name = "sam2"

    def __init__(
        self,
        model: str = "facebook/sam2.1-hiera-tiny",
        grid: int = 4,
        min_area: float = 0.002,
        max_instances: int = 12,
        device: str = "cpu",
        **_: Any,
    ):
        from transformers import Sam2VideoModel, Sam2VideoProcessor

        self.model_ref = model
        self.model = Sam2VideoModel.from_pretrained(model).to(device).eval()
        self.processor = Sam2VideoProcessor.from_pretrained(model)
        self.grid, self.min_area, self.max_instances, self.device = grid, min_area, max_instances, device

    def _propose(self, frame: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """Masks (and scores) for a grid of single-point prompts on one frame."""
        import torch

        h, w = frame.shape[:2]
        points = [
            ((c + 0.5) * w / self.grid, (r + 0.5) * h / self.grid)
            for r in range(self.grid)
            for c in range(self.grid)
        ]
        session = self.processor.init_video_session(video=[frame], inference_device=self.device)
        ids = list(range(1, len(points) + 1))
        self.processor.add_inputs_to_inference_session(
            session,
            frame_idx=0,
            obj_ids=list(ids),  # a copy: transformers consumes the list it is given (it came back empty)
            input_points=[[[[x, y]] for x, y in points]],
            input_labels=[[[1] for _ in points]],
        )
        with torch.no_grad():
            out = self.model(inference_session=session, frame_idx=0)
        masks = self.processor.post_process_masks(
            [out.pred_masks.cpu()], original_sizes=[[h, w]], binarize=True
        )[0]
        scores = (
            torch.sigmoid(out.object_score_logits).flatten().tolist()
            if getattr(out, "object_score_logits", None) is not None
            else [1.0] * len(ids)
        )
        return [(masks[k, 0].numpy().astype(bool), float(scores[k])) for k in range(len(ids))]

    def segment(
        self, frames: np.ndarray, keyframe_interval: int
    ) -> tuple[dict[int, np.ndarray], dict[int, float]]:
        """{instance id: (T, H, W) bool masks}, {instance id: confidence} for a (T, H, W, 3) uint8 video."""
        import torch

        t_total, h, w = frames.shape[:3]
        tracks: dict[int, np.ndarray] = {}
        scores: dict[int, float] = {}
        session = self.processor.init_video_session(video=list(frames), inference_device=self.device)
        for key in range(0, t_total, keyframe_interval):
            new = []
            for mask, score in self._propose(frames[key]):
                if mask.sum() < self.min_area * h * w or len(tracks) + len(new) >= self.max_instances:
                    continue
                existing = [tracks[i][key] for i in tracks] + [m for _, m in new]
                if all(_iou(mask, m) <= NEW_INSTANCE_IOU for m in existing):
                    oid = len(tracks) + len(new) + 1
                    new.append((oid, mask))
                    scores[oid] = score
            for oid, _ in new:
                tracks[oid] = np.zeros((t_total, h, w), dtype=bool)
            if new:  # one call: transformers replaces the session's "objects with new inputs" on every call
                self.processor.add_inputs_to_inference_session(
                    session,
                    frame_idx=key,
                    obj_ids=[oid for oid, _ in new],
                    input_masks=[mask.astype(np.float32) for _, mask in new],
                )
            if not tracks:
                continue
            end = min(key + keyframe_interval, t_total)
            with torch.no_grad():
                for out in self.model.propagate_in_video_iterator(
                    session, start_frame_idx=key, max_frame_num_to_track=end - key - 1
                ):
                    if out.frame_idx >= end:
                        break
                    masks = self.processor.post_process_masks(
                        [out.pred_masks.cpu()], original_sizes=[[h, w]], binarize=True
                    )[0]
                    for k, oid in enumerate(session.obj_ids):
                        tracks[oid][out.frame_idx] = masks[k, 0].numpy().astype(bool)
        return tracks, scores
