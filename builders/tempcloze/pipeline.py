"""The TempCloze build: filter each video, sample its gap, derive the distractors, write the item, and
summarise everything in `manifest.json` (counts per filter, failures with reasons, parameters, seed).

Per-video randomness comes from (seed, stem) only, so a build is the same for any worker count or order.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Optional

from harness.api import FrameSpec, Model, Segment, VideoRef, atomic_path, media_identity, write_atomic
from harness.frames import VIDEO_SUFFIXES, MediaError, load_clip, probe_video

from .analysis import MotionProbe, pair_starts
from .clips import write_item_clips
from .config import BuildConfig
from .intervals import GapRejected, ItemPlan, gap_length_bounds, item_rng, plan_item
from .layout import CHOICES_DIR, CLIPS_FILE, MANIFEST_FILE, MIXED_FILE, SOURCES_DIR
from .mixed import select_mixed
from .suitability import ask_suitability
from .virtual import item_document, source_reference, write_item_document

FILTER_STAGES = ("readable", "duration", "sharpness", "suitability", "motion")
# The flag that sets the threshold behind a skip reason (named when nothing passed).
THRESHOLD_FLAGS = {"blurry": "--min-sharpness", "no_motion": "--min-motion", "too_short": "--min-duration"}
SYNTHETIC_HINT = (
    "the paper's thresholds are for natural footage: soft, slow synthetic renders such as the CycliST "
    "build's videos pass with --min-sharpness 0 --min-motion 0"
)


class NoUsableVideos(ValueError):
    """Raised when a source folder yields no item; the message gives the count per skip reason."""

    def __init__(self, folder: Path, counts: dict[str, int], out: Optional[Path] = None) -> None:
        detail = ", ".join(f"{reason}: {n}" for reason, n in sorted(counts.items()))
        manifest = Path(out) / MANIFEST_FILE if out is not None else MANIFEST_FILE
        if not detail:
            msg = (
                f"no video files in {folder} (looked for {', '.join(sorted(VIDEO_SUFFIXES))}, "
                "recursively); point --videos at a folder of videos"
            )
        else:
            flags = [
                f"{reason}: {THRESHOLD_FLAGS[reason]}"
                for reason in sorted(counts)
                if reason in THRESHOLD_FLAGS
            ]
            msg = (
                f"no usable video in {folder} ({detail}); {manifest} gives each file's reason: "
                "replace those videos or lower the thresholds that rejected them"
                + (f" ({', '.join(flags)}; {SYNTHETIC_HINT})" if flags else "")
            )
        super().__init__(msg)
        self.counts = counts


def find_videos(folder: Path) -> list[Path]:
    """Video files under `folder` (recursively), sorted by path."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES)


def place_source(path: Path, stem: str, out_dir: Path, how: str) -> Path:
    """The source a virtual item points at: hard-linked (or copied) into OUT/sources/, or left in place."""
    if how == "reference" or path.resolve().is_relative_to(Path(out_dir).resolve()):
        return path  # already inside the dataset: never link or copy a file onto itself
    target = out_dir / SOURCES_DIR / f"{stem}{path.suffix.lower()}"
    if how == "link":
        try:
            with atomic_path(target) as tmp:
                os.link(path, tmp)
            return target
        except OSError:
            pass  # another filesystem, or links not allowed: copy instead
    with atomic_path(target) as tmp:
        shutil.copyfile(path, tmp)
    return target


def _skip(outcome: dict, stage: Optional[str], reason: str, detail: str) -> dict:
    if stage:
        outcome["stages"][stage] = False
    outcome.update(status="skipped", reason=reason, detail=detail)
    return outcome


def source_name(path: Path, videos_dir: Path, given: Optional[str] = None) -> str:
    """The dataset source an item is recorded under (Appendix E's per-source tables): `given` (--source),
    else the first subfolder of `videos_dir` holding the video, else the name of `videos_dir` itself."""
    if given:
        return given
    try:
        parts = path.relative_to(videos_dir).parts
    except ValueError:
        parts = ()
    return parts[0] if len(parts) > 1 else (videos_dir.resolve().name or str(videos_dir))


class _Skipped(Exception):
    """A filter stage rejected the video: `stage` (None: not a filter stage), `reason`, `detail`."""

    def __init__(self, stage: Optional[str], reason: str, detail: str) -> None:
        super().__init__(detail)
        self.stage, self.reason, self.detail = stage, reason, detail


_READ_ERRORS = (MediaError, OSError, ValueError)


def process_video(
    path: Path,
    stem: str,
    cfg: BuildConfig,
    out_dir: Path,
    model: Optional[Model] = None,
    dataset_source: Optional[str] = None,
) -> dict[str, Any]:
    """Filter one video and write its item; returns an outcome record (kept, or skipped with a reason).
    `dataset_source` (the dataset source name) is recorded in the item's clips.json as `source_dataset`."""
    outcome: dict[str, Any] = {"stem": stem, "video": str(path), "stages": {}, "measures": {}}
    if dataset_source:
        outcome["source_dataset"] = dataset_source
    try:
        num_frames, fps, shortest_gap = _check_duration(path, cfg, outcome)
        probe = _motion_probe(path, cfg, num_frames, fps, shortest_gap)
        _check_sharpness(probe, cfg, outcome)
        if model is not None:
            _check_suitability(model, path, stem, outcome)
        plan, motion = _plan_gap(probe, num_frames, cfg, stem, outcome)
        _write_item(path, stem, cfg, out_dir, fps, plan, motion, dataset_source)
    except _Skipped as skip:
        return _skip(outcome, skip.stage, skip.reason, skip.detail)
    outcome.update(status="kept", reason=None, detail=None, gap=list(plan.gap), attempts=plan.attempts)
    return outcome


def _check_duration(path: Path, cfg: BuildConfig, outcome: dict) -> tuple[int, float, int]:
    """(frames, fps, shortest gap length) of a readable video long enough for a gap and its context."""
    try:
        info = probe_video(path)
    except _READ_ERRORS as err:
        raise _Skipped("readable", "unreadable", str(getattr(err, "reason", err))) from None
    outcome["stages"]["readable"] = True
    num_frames, fps = int(info.num_frames), float(info.fps)
    duration = num_frames / fps if fps > 0 else 0.0
    outcome["measures"].update(duration=duration, num_frames=num_frames, fps=fps)
    lo, hi = gap_length_bounds(num_frames, cfg.gap_rules()) if num_frames > 0 else (1, 0)
    if duration < cfg.min_duration or hi < lo:
        raise _Skipped("duration", "too_short", f"{duration:.2f} s, {num_frames} frames")
    if cfg.max_duration is not None and duration > cfg.max_duration:
        raise _Skipped("duration", "too_long", f"{duration:.2f} s > {cfg.max_duration} s")
    outcome["stages"]["duration"] = True
    return num_frames, fps, lo


def _motion_probe(
    path: Path, cfg: BuildConfig, num_frames: int, fps: float, shortest_gap: int
) -> MotionProbe:
    """Sharpness and gap motion measured on frame pairs decoded at the flow height."""
    starts = pair_starts(
        num_frames, fps, cfg.pairs_per_second, shortest_gap, window=(cfg.center_lo, cfg.center_hi)
    )
    ref = VideoRef(path=str(path), segments=tuple(Segment(start=s, end=s + 2) for s in starts))
    try:
        frames = load_clip(ref, FrameSpec(strategy="all", max_height=cfg.flow_height)).frames
    except _READ_ERRORS as err:
        raise _Skipped(None, "unreadable", f"decoding failed: {getattr(err, 'reason', err)}") from None
    if len(frames) != 2 * len(starts):
        raise _Skipped(None, "unreadable", f"decoded {len(frames)} of {2 * len(starts)} frames")
    return MotionProbe(starts, frames, cfg.flow_height)


def _check_sharpness(probe: MotionProbe, cfg: BuildConfig, outcome: dict) -> None:
    sharp = probe.sharpness()
    outcome["measures"]["sharpness"] = sharp
    if sharp < cfg.min_sharpness:
        raise _Skipped("sharpness", "blurry", f"variance of Laplacian {sharp:.1f} < {cfg.min_sharpness}")
    outcome["stages"]["sharpness"] = True


def _check_suitability(model: Model, path: Path, stem: str, outcome: dict) -> None:
    ok, answer = ask_suitability(model, path, stem)
    outcome["measures"]["suitability_answer"] = answer
    if not ok:
        raise _Skipped("suitability", "unsuitable", f"model answered {answer!r}")
    outcome["stages"]["suitability"] = True


def _plan_gap(
    probe: MotionProbe, num_frames: int, cfg: BuildConfig, stem: str, outcome: dict
) -> tuple[ItemPlan, float]:
    """The item's gap and clips, and the motion measured in the gap it kept (every try is recorded)."""
    tried: list[float] = []

    def has_motion(a: int, b: int) -> bool:
        m = probe.gap_motion(a, b)
        tried.append(m)
        return not math.isnan(m) and m > cfg.min_motion

    try:
        plan = plan_item(num_frames, cfg.gap_rules(), item_rng(cfg.seed, stem), has_motion, cfg.gap_tries)
    except GapRejected as err:
        outcome["measures"]["gap_motion_tries"] = [round(m, 4) for m in tried]
        raise _Skipped("motion" if err.reason == "no_motion" else None, err.reason, str(err)) from None
    outcome["stages"]["motion"] = True
    outcome["measures"]["gap_motion_tries"] = [round(m, 4) for m in tried]
    return plan, tried[-1]


def _write_item(
    path: Path,
    stem: str,
    cfg: BuildConfig,
    out_dir: Path,
    fps: float,
    plan: ItemPlan,
    motion: float,
    dataset_source: Optional[str],
) -> None:
    """The item's clips (or its virtual source) and clips.json; a failure leaves no partial item."""
    item_dir = out_dir / CHOICES_DIR / stem
    try:
        if item_dir.exists():
            shutil.rmtree(item_dir)
        if cfg.virtual:
            source = place_source(path, stem, out_dir, cfg.sources)
        else:
            write_item_clips(path, item_dir, plan.clips, fps, cfg.crf)
            source = path
        doc = item_document(
            stem,
            source_reference(source, out_dir),
            fps,
            plan,
            mode="virtual" if cfg.virtual else "files",
            source_identity=media_identity(path),
            extra={
                "gap_motion": round(motion, 4),
                **({"source_dataset": dataset_source} if dataset_source else {}),
            },
        )
        write_item_document(item_dir / CLIPS_FILE, doc)
    except _READ_ERRORS as err:
        shutil.rmtree(item_dir, ignore_errors=True)
        raise _Skipped(None, "write_failed", str(getattr(err, "reason", err))) from None


def _worker(args: tuple) -> dict[str, Any]:
    path, stem, cfg, out_dir, source = args
    return process_video(path, stem, cfg, out_dir, dataset_source=source)


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="tempcloze", unit="video", disable=not enabled, file=sys.stderr)


def build_dataset(
    videos_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    cfg: BuildConfig = BuildConfig(),
    model: Optional[Model] = None,
    progress: bool = True,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Build a TempCloze dataset from every video under `videos_dir` into `out_dir`; returns the manifest.

    Raises NoUsableVideos (after writing the manifest) when no video gives an item.
    """
    src, out = Path(videos_dir), Path(out_dir)
    if not src.is_dir():
        raise ValueError(f"--videos {src}: not a folder")
    choices = out / CHOICES_DIR
    if choices.exists() and any(choices.iterdir()):
        if not overwrite:
            raise ValueError(
                f"{choices} already holds items; pass --overwrite to replace them or pick another --out"
            )
        shutil.rmtree(choices)
        shutil.rmtree(out / SOURCES_DIR, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)

    outcomes: list[dict[str, Any]] = []
    jobs: list[tuple] = []
    seen: set[str] = set()
    for path in find_videos(src):
        if path.stem in seen:
            outcomes.append(
                {
                    "stem": path.stem,
                    "video": str(path),
                    "stages": {},
                    "measures": {},
                    "status": "skipped",
                    "reason": "duplicate_stem",
                    "detail": "another video with this file stem came first",
                }
            )
            continue
        seen.add(path.stem)
        jobs.append((path, path.stem, cfg, out, source_name(path, src, cfg.source)))

    workers = 1 if model is not None else max(1, cfg.workers)
    with _progress(len(jobs), progress) as bar:
        if workers == 1 or len(jobs) <= 1:
            for path, stem, _, _, source in jobs:
                outcomes.append(process_video(path, stem, cfg, out, model, source))
                bar.update(1)
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for fut in as_completed([pool.submit(_worker, job) for job in jobs]):
                    outcomes.append(fut.result())
                    bar.update(1)
    outcomes.sort(key=lambda o: (o["stem"], o["video"]))
    kept = [o["stem"] for o in outcomes if o["status"] == "kept"]
    mixed = select_mixed(kept, cfg.seed, cfg.mixed_size)
    manifest = make_manifest(src, cfg, outcomes, workers, model)
    if kept:
        write_atomic(out / MIXED_FILE, json.dumps(mixed, indent=2) + "\n")
    write_atomic(out / MANIFEST_FILE, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    if not kept:
        raise NoUsableVideos(src, manifest["skipped"], out)
    return manifest


def make_manifest(
    src: Path, cfg: BuildConfig, outcomes: list[dict], workers: int, model: Optional[Model]
) -> dict:
    """Counts per filter stage (pass / fail among the videos that reached it), skip reasons, failures."""
    filters = {}
    for stage in FILTER_STAGES:
        results = [o["stages"][stage] for o in outcomes if stage in o["stages"]]
        filters[stage] = {"pass": sum(results), "fail": len(results) - sum(results)}
    thresholds = {
        "duration": {"min_s": cfg.min_duration, "max_s": cfg.max_duration},
        "sharpness": {"min_laplacian_variance": cfg.min_sharpness, "height": cfg.flow_height},
        "suitability": {
            "enabled": model is not None,
            "model": model.identity() if model is not None else None,
        },
        "motion": {"min_flow": cfg.min_motion, "height": cfg.flow_height, "tries": cfg.gap_tries},
    }
    for stage, th in thresholds.items():
        filters[stage]["threshold"] = th
    kept = [o for o in outcomes if o["status"] == "kept"]
    return {
        "builder": "tempcloze",
        "format_version": 1,
        "source_folder": str(src),
        "seed": cfg.seed,
        "parameters": cfg.to_dict(),
        "workers_used": workers,
        "videos_found": len(outcomes),
        "kept": len(kept),
        "skipped": dict(Counter(o["reason"] for o in outcomes if o["status"] != "kept")),
        "filters": filters,
        "gap_attempts": dict(Counter(str(o["attempts"]) for o in kept)),
        "items": [o["stem"] for o in kept],
        "sources": dict(Counter(o.get("source_dataset") for o in kept if o.get("source_dataset"))),
        "failures": [
            {"video": o["video"], "stem": o["stem"], "reason": o["reason"], "detail": o["detail"]}
            for o in outcomes
            if o["status"] != "kept"
        ],
        "measures": {o["stem"]: o["measures"] for o in outcomes},
    }
