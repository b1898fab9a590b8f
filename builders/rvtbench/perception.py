"""The DT of a real video from registered perception parts (paper Sec. 2.2, eq. 2-4).

Segmenter (key frames every t_s with tracking), depth model (every frame), describer (key frames; the
description of an instance is carried to the frames until its next key frame), OpenCV features and
qualitative relations (every frame), and a video-level description from the key frames.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from harness.api import VideoRef
from harness.frames import FrameSpec, load_clip

from .dt import SAME_DEPTH_THRESHOLD, frame_relations, instance_record, normalise_depth, spatial_description
from .features import FrameFeatures


def decode_video(path: Path, max_side: int | None = None) -> tuple[np.ndarray, float]:
    """Every frame of a video (T, H, W, 3) uint8 and its fps, through the harness decoders."""

    clip = load_clip(VideoRef(path=str(path)), FrameSpec(strategy="all", max_side=max_side))
    return clip.frames, float(clip.fps)


def perception_dt(
    frames: np.ndarray,
    fps: float,
    video_rel: str,
    segmenter: Any,
    depth_model: Any,
    describer: Any,
    keyframe_interval: int,
    part_names: dict[str, str],
) -> dict:
    """The DT JSON of a decoded video."""
    t_total, h, w = frames.shape[:3]
    tracks, scores = segmenter.segment(frames, keyframe_interval)
    raw = depth_model.depth(frames)
    inverse = bool(getattr(depth_model, "inverse", False))
    object_pixels = [raw[t][m[t]] for m in tracks.values() for t in range(t_total) if m[t].any()]
    flat = np.concatenate(object_pixels) if object_pixels else raw.reshape(-1)
    lo, hi = float(flat.min()), float(flat.max())
    described: dict[str, tuple[str, dict]] = {}
    out_frames, previous = [], None
    scene_text = ""
    for t in range(t_total):
        key = t % keyframe_interval == 0
        depth = normalise_depth(raw[t], lo, hi, inverse=inverse)
        feats = FrameFeatures(frames[t], previous)
        previous = feats
        if key:
            scene_text = describer.describe_scene(frames[t])
        instances: dict[str, dict] = {}
        for oid, masks in sorted(tracks.items()):
            mask = masks[t]
            if not mask.any():
                continue
            f = feats.instance(mask)
            if key or str(oid) not in described:
                described[str(oid)] = describer.describe_instance(frames[t], mask, f)
            text, attrs = described[str(oid)]
            instances[str(oid)] = instance_record(mask, depth, text, f, scores.get(oid, 1.0), attrs)
        relations = frame_relations(instances, w, SAME_DEPTH_THRESHOLD)
        out_frames.append(
            {
                "timestamp": t,
                "time_s": round(t / fps, 6),
                "keyframe": key,
                "scene_description": scene_text,
                "spatial_description": spatial_description(instances, relations),
                "relations": relations,
                "instances": instances,
            }
        )
    keyframes = [frames[t] for t in range(0, t_total, keyframe_interval)]
    return {
        "metadata": {
            "description": describer.describe_video(keyframes, len(tracks)),
            "duration": int(t_total),
            "resolution": [int(h), int(w)],
            "fps": float(fps),
            "video": video_rel,
            "keyframe_interval": int(keyframe_interval),
            "source": "perception",
            "parts": dict(part_names),
            "depth": {
                "convention": "distance",
                "range": [0.0, 255.0],
                "same_depth_threshold": SAME_DEPTH_THRESHOLD,
                "note": f"model depth over object pixels scaled from [{lo:.4f}, {hi:.4f}]"
                + (" (inverse depth)" if inverse else ""),
            },
        },
        "frames": out_frames,
    }
