"""Speed of the TempCloze builder in --virtual mode: videos per minute per core on 60 s 720p sources.

Ours: motion and sharpness measured on frame pairs decoded at 256 px height. Baseline, measured in the
same run on the same sources: the same build with flow on full-resolution frames (flow height = source
height). fast=True uses a few short, small sources so the test suite can call it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from bench import figure_row
from harness_builders.tempcloze.config import BuildConfig
from harness_builders.tempcloze.pipeline import build_dataset
from harness_builders.tempcloze.synthetic import write_pattern_video

TARGET = ">= 10 videos/minute/core for 60 s 720p sources in --virtual mode"


def _sources(folder: Path, count: int, seconds: float, fps: float, width: int, height: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        path = folder / f"src{i:02d}.mp4"
        if not path.exists():
            # soft texture + moving square at CRF 20: compresses like ordinary footage (a few Mbit/s)
            write_pattern_video(
                path, seconds, fps, width, height, speed=6.0, seed=100 + i, smooth=True, crf=20
            )
    return folder


def _rate(src: Path, out: Path, cfg: BuildConfig, count: int) -> float:
    """Videos per minute with one worker (one core)."""
    t0 = time.perf_counter()
    manifest = build_dataset(src, out, cfg, progress=False, overwrite=True)
    elapsed = time.perf_counter() - t0
    if manifest["kept"] != count:
        raise RuntimeError(
            f"bench: expected {count} items, the build kept {manifest['kept']}: {manifest['skipped']}"
        )
    return 60.0 * count / elapsed


def run(fast: bool = False) -> list[dict]:
    """One figure: videos/minute/core, ours (256 px flow) vs full-resolution flow."""
    count, seconds, fps, (w, h) = (2, 4.0, 10.0, (640, 360)) if fast else (3, 60.0, 30.0, (1280, 720))
    cache = (
        Path(os.environ.get("TEMPCLOZE_BENCH_DIR", tempfile.gettempdir()))
        / f"tempcloze_bench_v2_{w}x{h}_{int(seconds)}s"
    )
    src = _sources(cache / "sources", count, seconds, fps, w, h)
    with tempfile.TemporaryDirectory() as tmp:
        ours = _rate(src, Path(tmp) / "ours", BuildConfig(virtual=True, workers=1), count)
        base = _rate(src, Path(tmp) / "base", BuildConfig(virtual=True, workers=1, flow_height=h), count)
    label = f"{int(seconds)} s {h}p" + (" (fast: short small sources)" if fast else "")
    return [figure_row(f"TempCloze --virtual build, {label}, videos/minute/core", ours, base, "videos/minute/core", TARGET)]


if __name__ == "__main__":
    for row in run(fast="--fast" in sys.argv):
        print(row)
