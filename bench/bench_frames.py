"""Frame decoding speed and memory: the harness's load_clip against decord and PyAV baselines.

Figures (issue 2, "Speed"): cold sampling of 16, 32 and 160 frames from a 5 s 1920x1080 H.264 video
at max side 448 against the faster of (a) decord VideoReader(width, height).get_batch and (b) PyAV
sequential decoding that converts only the sampled frames (reformat to the same size), on the same
indices; a warm frame-cache hit against the cold path; the peak memory of one 160-frame sample against
twice the frames' own size (measured in a fresh subprocess). Every time is the best of interleaved
repetitions in this run (timeit's advice: on a shared machine the minimum is the least noisy estimate of
the cost; the median is printed alongside). `python bench/bench_frames.py` prints the table.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from harness.data.media import VideoRef
from harness.frames import FrameCache, FrameSpec, load_clip, sample_indices
from harness.frames import probe as probe_mod
from harness.frames.content_hash import HashStore
from harness.frames.synthetic import read_marker, write_marker_video


def decord_get_batch(path: str, indices: list[int], size: tuple[int, int]) -> np.ndarray:
    """Baseline (a): decord scaling in its reader, one get_batch call."""
    import decord

    reader = decord.VideoReader(path, ctx=decord.cpu(0), width=size[0], height=size[1])
    return reader.get_batch(indices).asnumpy()


def pyav_sequential(path: str, indices: list[int], size: tuple[int, int]) -> np.ndarray:
    """Baseline (b): lmms-eval-style PyAV loop, decoding every frame up to the last wanted one and
    converting only the wanted ones (here straight to the output size)."""
    import av

    wanted = set(indices)
    got: dict[int, np.ndarray] = {}
    last = max(indices)
    with av.open(path) as container:
        for i, frame in enumerate(container.decode(video=0)):
            if i in wanted:
                got[i] = frame.reformat(size[0], size[1], format="rgb24").to_ndarray()
            if i >= last:
                break
    return np.stack([got[i] for i in indices])


def ours_cold(path: str, spec: FrameSpec) -> np.ndarray:
    """The harness, cold: no frame cache and no memoised probe (as in a fresh process)."""
    probe_mod.forget()
    return load_clip(VideoRef(path=path), spec).frames


def _times(fns: dict, reps: int) -> tuple[dict[str, float], dict[str, float]]:
    """(best, median) wall seconds per contender over `reps` interleaved rounds."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for name, fn in fns.items():  # interleaved, so load changes hit every contender alike
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {k: min(v) for k, v in times.items()}, {k: statistics.median(v) for k, v in times.items()}


_MEMORY_CHILD = r"""
import json, sys, tracemalloc
import av, numpy  # libraries are loaded before the baseline: they are not the sample's memory
from harness.frames import FrameSpec, decoder_versions, load_clip
from harness.data.media import VideoRef
decoder_versions()  # imports decord too
path, count, side = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def status(field):  # VmHWM is this image's own peak; ru_maxrss would include the forking parent's
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))
try:  # reset the high-water mark so the imports' transient peak does not count
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    pass
before = status("VmRSS")
tracemalloc.start()
clip = load_clip(VideoRef(path=path), FrameSpec(strategy="uniform", count=count, max_side=side))
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
peak = status("VmHWM")
print(json.dumps({"frames": clip.frames.nbytes, "rss_peak_delta": peak - before, "traced_peak": traced}))
"""


def measure_memory(path: str, count: int, side: int) -> dict:
    """Peak memory of one load_clip in a fresh interpreter: RSS delta and tracemalloc peak."""
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_CHILD, path, str(count), str(side)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _sparse_long_video(tmp: Path, reps: int) -> dict:
    """Extra figure (no bar in the issue): 16 frames from a 60 s 640x360 video with a keyframe every 32
    frames, where the planner seeks from keyframe to keyframe instead of decoding everything."""
    path = write_marker_video(
        tmp / "long.mp4", 780, 640, 360, fps=13, options={"x264-params": "keyint=32:min-keyint=32"}
    )
    spec = FrameSpec(strategy="uniform", count=16, max_side=448)
    indices = sample_indices(780, spec, 13.0)
    check = ours_cold(path, spec)
    assert [read_marker(f) for f in check] == indices, "harness decoded the wrong frames"
    size = check.shape[1:3][::-1]
    t, _ = _times(
        {
            "ours": lambda: ours_cold(path, spec),
            "decord": lambda: decord_get_batch(path, indices, size),
            "pyav": lambda: pyav_sequential(path, indices, size),
        },
        reps,
    )
    base = min(t["decord"], t["pyav"])
    return {
        "figure": "frames cold, sparse: 16 of a 60 s 640x360 H.264 video, keyframe every 32 frames",
        "ours": t["ours"],
        "baseline": base,
        "ratio": base / t["ours"],
        "unit": "s",
        "target": f"informative, no bar (keyframe seeks; decord {t['decord']:.3f} s, PyAV {t['pyav']:.3f} s)",
    }


def run(fast: bool = False) -> list[dict]:
    """Measure every frames figure; fast=True uses a small video and one repetition (seconds)."""
    if fast:
        width, height, n_frames, counts, side, reps = 640, 360, 40, (8, 16, 40), 224, 1
    else:
        width, height, n_frames, counts, side, reps = 1920, 1080, 160, (16, 32, 160), 448, 7
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = write_marker_video(Path(tmp) / "bench.mp4", n_frames, width, height, fps=32)
        label = f"{n_frames / 32:g} s {width}x{height} H.264"
        cold_last = None
        for count in counts:
            spec = FrameSpec(strategy="uniform", count=count, max_side=side)
            indices = sample_indices(n_frames, spec, 32.0)
            size = load_clip(VideoRef(path=path), spec).frames.shape[1:3][::-1]
            check = ours_cold(path, spec)
            assert [read_marker(f) for f in check] == indices, "harness decoded the wrong frames"
            t, med = _times(
                {
                    "ours": lambda spec=spec: ours_cold(path, spec),
                    "decord": lambda idx=indices, size=size: decord_get_batch(path, idx, size),
                    "pyav": lambda idx=indices, size=size: pyav_sequential(path, idx, size),
                },
                reps,
            )
            base = min(t["decord"], t["pyav"])
            rows.append(
                {
                    "figure": f"frames cold: {count} of {label} at max side {side}",
                    "ours": t["ours"],
                    "baseline": base,
                    "ratio": base / t["ours"],
                    "unit": "s",
                    "target": "ratio >= 1 (at least as fast as the faster of decord get_batch and "
                    f"PyAV sequential; best decord {t['decord']:.3f} s, PyAV {t['pyav']:.3f} s; "
                    f"medians ours {med['ours']:.3f}, decord {med['decord']:.3f}, PyAV {med['pyav']:.3f})",
                }
            )
            cold_last = (spec, t["ours"])
        spec, cold = cold_last
        with tempfile.TemporaryDirectory() as cache_dir:
            cache, hashes = FrameCache(Path(cache_dir)), HashStore()  # a run's frame cache and content hashes
            load_clip(VideoRef(path=path), spec, cache=cache, hashes=hashes)
            warm, _ = _times({"warm": lambda: load_clip(VideoRef(path=path), spec, cache=cache, hashes=hashes)}, reps)
        rows.append(
            {
                "figure": f"frames warm: cache hit, {spec.count} frames at max side {side}",
                "ours": warm["warm"],
                "baseline": cold,
                "ratio": cold / warm["warm"],
                "unit": "s",
                "target": "ratio >= 20 (hit at least 20x faster than cold)",
            }
        )
        if not fast:
            rows.append(_sparse_long_video(Path(tmp), reps))
        mem = measure_memory(path, counts[-1], side)
        bar = 2 * mem["frames"]
        rows.append(
            {
                "figure": f"frames peak memory: one {counts[-1]}-frame sample at max side {side} (RSS delta)",
                "ours": mem["rss_peak_delta"] / 2**20,
                "baseline": bar / 2**20,
                "ratio": bar / mem["rss_peak_delta"],
                "unit": "MiB",
                "target": f"ratio > 1 (peak under 2x the frames' own {mem['frames'] / 2**20:.1f} MiB; "
                f"Python/numpy allocations alone peak at {mem['traced_peak'] / 2**20:.1f} MiB)",
            }
        )
    return rows


if __name__ == "__main__":
    for row in run(fast="--fast" in sys.argv):
        print(
            f"{row['figure']}: ours {row['ours']:.4g} {row['unit']}, baseline {row['baseline']:.4g} "
            f"{row['unit']}, ratio {row['ratio']:.2f}  [{row['target']}]"
        )
