"""CycliST builder speed: scene generation with validation (scenes/s) and raster fps at 480x270 with
masks and H.264 encoding, single process; baselines are the issue's bars (fixed reference costs; see docs/builders/cyclist.md)."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from harness_builders.cyclist.config import Composition, SceneSettings, plan_scene
from harness_builders.cyclist.scene import dump_scene, generate_scene


def bench_generation(fast: bool) -> list[dict]:
    settings, n = SceneSettings(), (6 if fast else 60)
    out = []
    for tier in ("L1", "L2", "L3", "L4"):
        comp = Composition(tier)
        start = time.perf_counter()
        scenes = [generate_scene(settings, plan_scene(comp, "test", i), 0).scene for i in range(n)]
        for s in scenes:
            dump_scene(s)
        ours = n / (time.perf_counter() - start)
        base = 50.0  # the bar as a fixed reference cost
        out.append(
            {
                "figure": f"scene generation+validation+JSON {tier}",
                "ours": ours,
                "baseline": base,
                "ratio": ours / base,
                "unit": "scenes/s (1 process)",
                "target": ">= 50 scenes/s/core",
            }
        )
    return out


def bench_raster(fast: bool) -> list[dict]:
    import tempfile
    from pathlib import Path

    from harness_builders.cyclist.render.raster import RasterRenderer

    frames = 32 if fast else 160
    settings = SceneSettings(number_of_frames=frames)
    renderer = RasterRenderer(480, 270)
    scene = generate_scene(settings, plan_scene(Composition("L4"), "test", 0), 0).scene
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        renderer.render(scene, Path(tmp) / "v.mp4")
        ours = frames / (time.perf_counter() - start)
    return [
        {
            "figure": "raster 480x270 incl. masks + H.264",
            "ours": ours,
            "baseline": 150.0,
            "ratio": ours / 150.0,
            "unit": "frames/s (1 process)",
            "target": ">= 150 fps/core (baseline = the bar)",
        }
    ]


def bench_memory(fast: bool) -> list[dict]:
    settings, n = SceneSettings(), (10 if fast else 100)
    peaks = []
    for count in (n // 5, n):
        tracemalloc.start()
        for i in range(count):
            dump_scene(generate_scene(settings, plan_scene(Composition("L3"), "test", i), 0).scene)
        peaks.append(tracemalloc.get_traced_memory()[1] / 1e6)
        tracemalloc.stop()
    return [
        {
            "figure": f"peak memory, {n} vs {n // 5} scenes (streamed)",
            "ours": peaks[1],
            "baseline": peaks[0],
            "ratio": float(np.float64(peaks[0]) / peaks[1]),
            "unit": "MB",
            "target": "flat in scene count (ratio ~1)",
        }
    ]


def run(fast: bool = False) -> list[dict]:
    """All CycliST builder figures."""
    return bench_generation(fast) + bench_raster(fast) + bench_memory(fast)


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['figure']:45s} ours {row['ours']:9.1f} baseline {row['baseline']:9.1f} "
            f"ratio {row['ratio']:6.2f} {row['unit']} (target {row['target']})"
        )
