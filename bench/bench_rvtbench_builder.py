"""Speed of the RVTBench builder with --from-synthetic: videos per second, full build vs the DT alone.

Ours: the whole build (exact digital twin per CycliST scene, schema check and write, down-sampling, facts,
rule selection, reasoning trees, template queries, ground truth by execution, test.jsonl and manifest).
Baseline, measured in the same run on the same scenes: the digital-twin construction and write alone,
the floor of any build. ratio = ours / baseline = the share of build time spent on the DT; it tells how
much the generation stages add (1.0 = nothing). fast=True uses two short, small scenes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from bench import figure_row

TARGET = "no speed bar in issue 10; generation stages should add little to the DT (ratio near 1)"


def _cyclist(out: Path, scenes: int, frames: int, size: str) -> Path:
    from harness_builders.cyclist.commands import CyclistBuilder

    parser = argparse.ArgumentParser()
    CyclistBuilder().add_arguments(parser)
    args = ["--tier", "L2", "--num-scenes", str(scenes), "--out", str(out), "--size", size]
    CyclistBuilder().run(parser.parse_args(args + ["--frames", str(frames), "--seed", "7", "--no_progress"]))
    return out


def _dt_only(cyclist: Path, out: Path) -> float:
    from harness_builders.rvtbench.dt import write_dt
    from harness_builders.rvtbench.synthetic import synthetic_sources

    t0 = time.perf_counter()
    sources = synthetic_sources(cyclist, 4)
    for video_id, _, make_dt in sources:
        write_dt(make_dt(f"videos/{video_id}.mp4"), out / "dt" / f"{video_id}.json")
    return len(sources) / (time.perf_counter() - t0)


def _full(cyclist: Path, out: Path) -> float:
    from harness_builders.rvtbench.config import BuildOptions
    from harness_builders.rvtbench.pipeline import build_dataset
    from harness_builders.rvtbench.queries import TemplateQueries
    from harness_builders.rvtbench.selection import RuleSelector
    from harness_builders.rvtbench.synthetic import synthetic_sources

    t0 = time.perf_counter()
    sources = synthetic_sources(cyclist, 4)
    options = BuildOptions(parts={"dt": "synthetic:cyclist"})
    manifest = build_dataset(sources, out, options, RuleSelector(3), TemplateQueries(), progress=False)
    elapsed = time.perf_counter() - t0
    if manifest["counts"]["samples"] == 0:
        raise RuntimeError(f"bench: the build in {out} produced no samples")
    return len(sources) / elapsed


def run(fast: bool = False) -> list[dict]:
    """One figure: videos/s of the full --from-synthetic build vs the DT construction alone."""
    scenes, frames, size, repeats = (2, 16, "160x90", 1) if fast else (4, 64, "320x180", 3)
    with tempfile.TemporaryDirectory() as tmp:
        cyclist = _cyclist(Path(tmp) / "cy", scenes, frames, size)
        ours = max(_full(cyclist, Path(tmp) / f"full{k}") for k in range(repeats))
        base = max(_dt_only(cyclist, Path(tmp) / f"dt{k}") for k in range(repeats))
    label = f"{scenes} CycliST L2 scenes, {frames} frames {size}" + (" (fast)" if fast else "")
    return [figure_row(f"RVTBench --from-synthetic build vs DT alone, {label}, videos/s", ours, base, "videos/s", TARGET)]


if __name__ == "__main__":
    for row in run(fast="--fast" in sys.argv):
        print(row)
