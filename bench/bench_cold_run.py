"""A cold run against the decoding limit (issue 29), as ratios measured in one run.

On the peer set (bench/peer_set.py: 32 items over 8 synthetic 1080p videos of 160 frames, 4 items per video,
32 frames per item at full size, the `random` baseline, which costs nothing):
1. a whole `--no_cache` harness process against the limit: PyAV decoding each video once (all frames, FFmpeg's
   frame and slice threads) and converting the 32 sampled frames to RGB, in this process. Measured alternately,
   3 rounds; the figure is the median run over the median limit. Bar: at most 1.3 x.
2. peak memory of the cold run's generation phase (RSS high-water mark over the RSS when it starts, in a fresh
   interpreter) against the frames of the largest batch handed to the model (distinct arrays, measured).
   Bar: at most 1.5 x.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import peer_set

LIMIT_BAR = 1.3
MEMORY_BAR = 1.5

_MEMORY_CHILD = r"""
import json, sys
from pathlib import Path
from harness.config.run import RunConfig
from harness.engine.generation import GenerationPipeline
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from bench.peer_set import FRAMES_PER_ITEM, TASK

data, task_dir, out = (Path(a) for a in sys.argv[1:4])
def status(field):  # VmHWM is this image's own peak; ru_maxrss would include the forking parent's
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))
seen = {"base": 0, "batch": 0}
original_run, original_call = GenerationPipeline.run, GenerationPipeline._call
def measured_run(self, todo):
    with open("/proc/self/clear_refs", "w") as f:  # the high-water mark restarts here
        f.write("5")
    seen["base"] = status("VmRSS")
    return original_run(self, todo)
def measured_call(self, ready, sink):
    arrays = {id(p.frames): p.frames.nbytes for _, req in ready for p in req.videos() if p.frames is not None}
    seen["batch"] = max(seen["batch"], sum(arrays.values()))
    return original_call(self, ready, sink)
GenerationPipeline.run, GenerationPipeline._call = measured_run, measured_call
cfg = RunConfig(tasks=[TASK], model="random", model_args={"max_frames": FRAMES_PER_ITEM}, data=data,
                no_cache=True, progress=False, output_path=out)
run(cfg, load_plugins(include_paths=[task_dir]))
print(json.dumps({"peak_delta": status("VmHWM") - seen["base"], "largest_batch": seen["batch"]}))
"""


def measure_memory(data: Path, task_dir: Path, out: Path) -> dict:
    """Peak RSS growth of a cold run's generation phase and the largest batch's frames, in bytes."""
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_CHILD, str(data), str(task_dir), str(out)],
        cwd=peer_set.REPO,
        env=peer_set.harness_env(),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"memory run exited {done.returncode}: {done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(fast: bool = False) -> list[dict]:
    work = Path(tempfile.mkdtemp(prefix="bench_cold_"))
    try:
        data = work / "data"
        peer_set.make_dataset(data, fast)
        task_dir = peer_set.write_task(work / "task")
        env, loads = peer_set.harness_env(), [peer_set.load_average()]
        cmd = peer_set.harness_cmd(data, task_dir, work / "out", "--no_cache")
        peer_set.timed(cmd, env, work)  # warm-up: byte code compiled, files in the page cache
        limits, colds = [], []
        for _ in range(1 if fast else 3):  # alternately, so both see the same load
            limits.append(peer_set.pyav_limit(data))
            colds.append(peer_set.timed(cmd, env, work))
        memory = measure_memory(data, task_dir, work / "out_memory")
        loads.append(peer_set.load_average())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    limit, cold = statistics.median(limits), statistics.median(colds)
    ratios = sorted(c / lim for c, lim in zip(colds, limits, strict=True))
    mib = 2**20
    peak, batch = memory["peak_delta"] / mib, memory["largest_batch"] / mib
    if not batch or not peak:
        raise RuntimeError(f"the memory run saw no frames: {memory}")
    return [
        {
            "figure": (
                f"cold run (--no_cache, whole process) / PyAV decoding each video once, peer set "
                f"(32 items over 8 1080p videos, 32 frames per item; medians of {len(colds)} alternating rounds: "
                f"run {cold:.2f} s [{min(colds):.2f}-{max(colds):.2f}], limit {limit:.2f} s "
                f"[{min(limits):.2f}-{max(limits):.2f}]; per-round ratios {', '.join(f'{r:.2f}' for r in ratios)}; "
                f"load average {' -> '.join(loads)})"
            ),
            "ours": cold / limit,
            "baseline": LIMIT_BAR,
            "ratio": LIMIT_BAR / (cold / limit),
            "unit": "x the limit",
            "target": f"<= {LIMIT_BAR} x the PyAV limit (ratio >= 1)",
        },
        {
            "figure": (
                f"peak memory of the cold run's generation phase (RSS growth) / frames of the largest batch "
                f"handed to the model ({peak:.0f} MiB / {batch:.0f} MiB)"
            ),
            "ours": peak / batch,
            "baseline": MEMORY_BAR,
            "ratio": MEMORY_BAR / (peak / batch),
            "unit": "x the batch's frames",
            "target": f"<= {MEMORY_BAR} x (ratio >= 1)",
        },
    ]


if __name__ == "__main__":
    for row in run(fast="--fast" in sys.argv):
        print(f"{row['figure']}: {row['ours']:.3f}")
