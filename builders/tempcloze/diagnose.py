"""The paper's diagnostics over a built or released TempCloze folder.

- Edge-frame check: no candidate's first frame may equal the last frame of `before`, and no candidate's
  last frame the first frame of `after` (exact pixel equality); reported as matches out of all candidate
  clips, per dimension (each dimension counts GT + its three distractors, as the paper's 12 per video).
- Edge baseline: a boundary-similarity scorer (cosine between the mean feature of the context's edge
  frames and the candidate's edge frames, both boundaries averaged) turned into linear probabilities; its
  mean probability of the ground truth per dimension (uniform = 0.25), and its top-1 accuracy.
  The release scores DINOv2 features; offline we use standardised pixel thumbnails, and any feature
  function can be passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import cv2
import numpy as np

from harness.api import FrameSpec, Segment, VideoRef
from harness.frames import load_clip, probe_video

from .layout import (
    ALL_CLIPS,
    CHOICES_DIR,
    CLIPS_FILE,
    DIMENSION_NAMES,
    DIMENSIONS,
    clip_file,
)
from .virtual import virtual_refs

FeatureFn = Callable[[np.ndarray], np.ndarray]


def dataset_items(root: Path) -> list[tuple[str, dict[str, VideoRef]]]:
    """(stem, {clip name: VideoRef}) for every item: mp4 files when GT.mp4 exists, else clips.json."""
    base = Path(root) / CHOICES_DIR
    if not base.is_dir():
        raise ValueError(f"{root}: no '{CHOICES_DIR}/' folder; is this a TempCloze dataset root?")
    items = []
    for item_dir in sorted(p for p in base.iterdir() if p.is_dir()):
        if (item_dir / "GT.mp4").is_file():
            missing = [n for n in ALL_CLIPS if not (item_dir / clip_file(n)).is_file()]
            if missing:
                raise ValueError(f"{item_dir}: missing clip files {', '.join(clip_file(n) for n in missing)}")
            items.append(
                (item_dir.name, {n: VideoRef(path=str(item_dir / clip_file(n)), label=n) for n in ALL_CLIPS})
            )
        elif (item_dir / CLIPS_FILE).is_file():
            items.append((item_dir.name, virtual_refs(item_dir / CLIPS_FILE, root)))
    if not items:
        raise ValueError(f"{base}: no item folder holds GT.mp4 or {CLIPS_FILE}")
    return items


class _Decoder:
    """Frames of refs through the core frames API, with per-file probes memoised."""

    def __init__(self, max_height: Optional[int]) -> None:
        self.max_height = max_height
        self._info: dict[str, Any] = {}

    def indices(self, ref: VideoRef) -> list[int]:
        if ref.path not in self._info:
            self._info[ref.path] = probe_video(ref.path)
        info = self._info[ref.path]
        return ref.source_indices(int(info.num_frames), float(info.fps))

    def frames_at(self, ref: VideoRef, indices: list[int]) -> np.ndarray:
        sub = VideoRef(path=ref.path, segments=tuple(Segment(start=i, end=i + 1) for i in indices))
        return load_clip(sub, FrameSpec(strategy="all", max_height=self.max_height)).frames


def edge_frame_check(root: Path, max_height: Optional[int] = None) -> dict[str, Any]:
    """Count candidate clips whose first frame equals before's last, or last frame equals after's first."""
    dec = _Decoder(max_height)
    per_dim = {d: {"clips": 0, "start_matches": 0, "end_matches": 0, "matches": 0} for d in DIMENSIONS}
    found = []
    for stem, refs in dataset_items(root):
        before_last = dec.frames_at(refs["before"], dec.indices(refs["before"])[-1:])[0]
        after_first = dec.frames_at(refs["after"], dec.indices(refs["after"])[:1])[0]
        edges = {}
        for name in ("GT", *[n for names in DIMENSIONS.values() for n in names]):
            idx = dec.indices(refs[name])
            first, last = dec.frames_at(refs[name], [idx[0], idx[-1]])
            edges[name] = (
                first.shape == before_last.shape and np.array_equal(first, before_last),
                last.shape == after_first.shape and np.array_equal(last, after_first),
            )
        for dim, names in DIMENSIONS.items():
            for name in ("GT", *names):
                start, end = edges[name]
                row = per_dim[dim]
                row["clips"] += 1
                row["start_matches"] += int(start)
                row["end_matches"] += int(end)
                row["matches"] += int(start or end)
                if start or end:
                    found.append({"stem": stem, "dimension": dim, "clip": name, "start": start, "end": end})
    overall = {
        k: sum(r[k] for r in per_dim.values()) for k in ("clips", "start_matches", "end_matches", "matches")
    }
    return {"per_dimension": per_dim, "overall": overall, "matches": found}


def thumbnail_feature(frame: np.ndarray, size: int = 32) -> np.ndarray:
    """Standardised (zero-mean, unit-norm) pixel thumbnail of a frame: a feature needing no model."""
    small = cv2.resize(np.ascontiguousarray(frame), (size, size), interpolation=cv2.INTER_AREA).astype(
        np.float64
    )
    vec = small.ravel() - small.mean()
    norm = np.linalg.norm(vec)
    return vec / norm if norm > 0 else vec


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return float(a @ b / (na * nb)) if na > 0 and nb > 0 else 0.0


def linear_probabilities(scores: list[float]) -> np.ndarray:
    """Scores to probabilities: shifted to be non-negative when any is negative, then normalised."""
    w = np.asarray(scores, dtype=np.float64)
    if w.min() < 0:
        w = w - w.min()
    total = w.sum()
    return w / total if total > 0 else np.full(len(w), 1.0 / len(w))


def _segment_positions(n: int, count: int, trim: int = 1) -> list[int]:
    """The evaluation's bin-centred sampling positions (16 frames, one trimmed at each end)."""
    if n <= 2 * trim:
        return list(range(n))
    c = min(count, n - 2 * trim)
    return [trim + int((i + 0.5) * (n - 2 * trim) / c) for i in range(c)]


def edge_baseline(
    root: Path,
    num_frames: int = 16,
    edge_frames: int = 4,
    max_height: Optional[int] = 360,
    feature: FeatureFn = thumbnail_feature,
) -> dict[str, Any]:
    """Mean ground-truth probability and top-1 accuracy of the boundary-similarity scorer per dimension."""
    dec = _Decoder(max_height)
    sums = {d: {"p_gt": 0.0, "top1": 0.0, "questions": 0} for d in DIMENSIONS}

    def edge_feats(ref: VideoRef, which: str) -> tuple[np.ndarray, np.ndarray]:
        idx = dec.indices(ref)
        sampled = [idx[p] for p in _segment_positions(len(idx), num_frames)]
        head, tail = sampled[:edge_frames], sampled[-edge_frames:]
        want = head if which == "head" else tail if which == "tail" else head + tail
        frames = dec.frames_at(ref, want)
        feats = np.stack([feature(f) for f in frames])
        h = feats[: len(head)].mean(axis=0) if which != "tail" else None
        t = feats[-len(tail) :].mean(axis=0) if which != "head" else None
        return h, t

    for _stem, refs in dataset_items(root):
        _, before_tail = edge_feats(refs["before"], "tail")
        after_head, _ = edge_feats(refs["after"], "head")
        cand: dict[str, float] = {}
        for name in ("GT", *[n for names in DIMENSIONS.values() for n in names]):
            head, tail = edge_feats(refs[name], "both")
            cand[name] = (_cosine(before_tail, head) + _cosine(tail, after_head)) / 2.0
        for dim, names in DIMENSIONS.items():
            scores = [cand["GT"], *[cand[n] for n in names]]
            probs = linear_probabilities(scores)
            best = np.flatnonzero(np.isclose(scores, max(scores)))
            row = sums[dim]
            row["p_gt"] += float(probs[0])
            row["top1"] += (1.0 / len(best)) if 0 in best else 0.0
            row["questions"] += 1
    out: dict[str, Any] = {}
    for dim, row in sums.items():
        n = row["questions"]
        out[DIMENSION_NAMES[dim]] = {
            "mean_gt_probability": row["p_gt"] / n if n else None,
            "top1_accuracy": row["top1"] / n if n else None,
            "questions": n,
        }
    return out


def diagnose(
    root: Path, num_frames: int = 16, edge_frames: int = 4, max_height: Optional[int] = 360
) -> dict[str, Any]:
    """Both diagnostics for one dataset root."""
    return {
        "dataset": str(root),
        "edge_frame_check": edge_frame_check(root, max_height=None),
        "edge_baseline": edge_baseline(root, num_frames, edge_frames, max_height),
    }
