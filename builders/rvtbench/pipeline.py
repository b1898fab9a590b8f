"""The RVTBench build: DTs -> down-sampling -> selection -> reasoning trees -> queries -> dataset folder.

Output layout (layout.py; read by the rvtbench tasks): `OUT/videos/<id>.mp4` (copied), `OUT/dt/<id>.json` (the
DT, schema-checked), `OUT/test.jsonl` (one sample per line: the paper's tuple with RLE masks / [x, y, w, h]
boxes per evaluation frame), `OUT/manifest.json` (configuration, counts per type x category x level, digest).
Every file is written through `harness.api`'s atomic writer.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.api import atomic_path, write_atomic
from harness.frames import FrameSpec, sample_indices

from .config import BuildOptions
from .dt import write_dt
from .facts import downsample, object_facts
from .layout import MANIFEST_FILE, SAMPLES_FILE, dt_file, video_file
from .queries import video_samples
from .vqa import answer_vocabulary

MANIFEST_VERSION = 1


def evaluation_frames(num_frames: int, fps: float, count: int) -> list[int]:
    """The frames ground truth is given for: the task's frame spec (uniform, both endpoints) over the video."""

    return sorted(set(sample_indices(num_frames, FrameSpec(strategy="uniform", count=count), fps)))


def _copy_video(src: Path, out: Path, video_id: str) -> str:
    rel = video_file(video_id, src.suffix or ".mp4")
    dest = out / rel
    if not dest.exists() or dest.stat().st_size != src.stat().st_size:
        with atomic_path(dest) as tmp:
            shutil.copyfile(src, tmp)
    return rel


def _make_twin(job: tuple[str, str, Callable[[str], dict], Path]) -> dict:
    """One video's DT, made, schema-checked and written (runs in a worker process with --workers)."""
    _video_id, rel, make_dt, path = job
    dt = make_dt(rel)
    write_dt(dt, path)
    return dt


def _twins(jobs: list[tuple], workers: int) -> Iterator[dict]:
    """The DT of every job, in order; `workers` > 1 builds them in that many processes."""
    if workers <= 1:
        yield from map(_make_twin, jobs)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_make_twin, jobs)


def build_dataset(
    sources: list[tuple[str, Path, Callable[[str], dict]]],
    out: Path,
    options: BuildOptions,
    selector: Any,
    writer: Any,
    progress: bool = True,
    workers: int = 1,
) -> dict:
    """Build every video: `sources` are (video id, video file, make_dt(video_rel) -> DT) triples.

    With `workers` > 1 the DTs (the whole cost of a `--from-synthetic` build) are made in that many processes
    (make_dt must then be picklable); selection, trees and queries stay in order here, so the output is the
    same bytes for any number of workers."""
    out.mkdir(parents=True, exist_ok=True)
    samples: list[dict] = []
    stats: dict = {}
    all_facts: list[dict] = []
    jobs = [
        (vid, _copy_video(path, out, vid), make, dt_file(out, vid)) for vid, path, make in sources
    ]
    twins = zip(jobs, _twins(jobs, workers), strict=True)
    if progress:
        from tqdm import tqdm

        twins = tqdm(twins, total=len(jobs), desc="rvtbench: videos", unit="video")
    for (video_id, _rel, _make, _path), dt in twins:
        rng = random.Random(f"{options.seed}:{video_id}")
        sampled = downsample(dt, options.downsample)
        facts = object_facts(sampled)
        all_facts.append(facts)
        selection = selector.select(sampled, facts, rng)
        frames = evaluation_frames(dt["metadata"]["duration"], dt["metadata"]["fps"], options.eval_frames)
        samples.extend(video_samples(dt, sampled, facts, selection, writer, frames, video_id, rng, stats))
    lines = [json.dumps(s, sort_keys=True, separators=(",", ":")) for s in samples]
    write_atomic(out / SAMPLES_FILE, "\n".join(lines) + ("\n" if lines else ""))
    manifest = _manifest(samples, options, len(sources), selector, writer, stats)
    manifest["answer_vocabulary"] = answer_vocabulary(all_facts)  # the `random` baseline's VQA answers
    write_atomic(out / MANIFEST_FILE, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


TASK_TYPES = ("segmentation", "grounding", "vqa", "summary")
CATEGORIES = ("semantic", "spatial", "temporal")
MISSING_REASONS = {  # why a build can lack a task type (rules of builders/rvtbench/selection.py)
    "segmentation": "no selected object got segmentation, or none of its queries was unique on the DT",
    "grounding": "no selected object moves or passes another (the rules' grounding criterion), "
    "or none of its queries was unique",
    "vqa": "no selected object changes state, and no scene had two summary objects to give one VQA "
    "by interactions, or none of its queries was unique",
    "summary": "every selected object matched another type's rule (more --objects-per-video adds summaries)",
}


def _manifest(
    samples: list[dict], options: BuildOptions, n_videos: int, selector: Any, writer: Any, stats: dict
) -> dict:
    cells = Counter(f"{s['task_type']}|{c}|L{s['level']}" for s in samples for c in s["categories"])
    every = [f"{t}|{c}|L{lv}" for t in TASK_TYPES for c in CATEGORIES for lv in (1, 2, 3, 4)]
    return {
        "builder": "rvtbench",
        "version": MANIFEST_VERSION,
        "options": asdict(options),
        "counts": {
            "videos": n_videos,
            "samples": len(samples),
            "by_task_type": dict(sorted(Counter(s["task_type"] for s in samples).items())),
            "by_level": dict(sorted(Counter(f"L{s['level']}" for s in samples).items())),
            "by_category": dict(sorted(Counter(c for s in samples for c in s["categories"]).items())),
            "by_type_category_level": dict(sorted(cells.items())),
            "non_unique_referents": sum(1 for s in samples if not s["unique"]),
            "missing_cells": [c for c in every if not cells.get(c)],
            "rejected_ambiguous": stats.get("rejected_ambiguous", 0),
            "category_fallbacks": stats.get("category_fallbacks", 0),
            "no_unique_query": stats.get("no_unique_query", 0),
            "not_on_eval_frames": stats.get("not_on_eval_frames", 0),
            "segmentation_by_largest": getattr(selector, "largest_fallbacks", 0),
            "vqa_by_interactions": getattr(selector, "interaction_fallbacks", 0),
            "missing_task_types": {
                t: MISSING_REASONS[t] for t in TASK_TYPES if not any(s["task_type"] == t for s in samples)
            },
            "llm_fallbacks": {
                "selector": getattr(selector, "fallbacks", 0),
                "queries": getattr(writer, "fallbacks", 0),
            },
        },
        "digest": hashlib.sha256(
            "\n".join(json.dumps(s, sort_keys=True) for s in samples).encode()
        ).hexdigest(),
    }
