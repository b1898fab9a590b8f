"""Decode once for the grid (issue 38): a grid of 4 free models on the peer set against 4 single runs.

On the peer set (bench/peer_set.py: 32 items over 8 synthetic 1080p videos, 32 frames per item), 4 entries of
the `random` baseline (seeds 0-3, each given the task's 32 frames per clip, so each costs a real decode and
nothing else):
1. `python -m harness grid` over the 4 models (one worker at a time, a fresh cache) against 4 single
   `--no_cache` runs, wall seconds of whole processes. Bar: the grid at least as fast (ratio >= 1).
2. decodes per clip in the grid: frame-cache entries written (one per decode; a hit writes none) over the
   clips. Bar: 1 (the 4 single --no_cache runs decode every clip once each: 4 per clip).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import yaml

from bench import peer_set

MODELS = 4


def _grid_file(work: Path, data: Path, task_dir: Path) -> Path:
    grid = {
        "output_path": str(work / "grid_out"),
        "cache_dir": str(work / "grid_cache"),
        "tasks": [peer_set.TASK],
        "include_path": [str(task_dir)],
        "data": str(data),
        "models": [
            {"model": "random", "model_args": {"seed": s, "max_frames": peer_set.FRAMES_PER_ITEM}}
            for s in range(MODELS)
        ],
    }
    path = work / "grid.yaml"
    path.write_text(yaml.safe_dump(grid))
    return path


def _singles(work: Path, data: Path, task_dir: Path) -> list[list[str]]:
    cmds = []
    for s in range(MODELS):
        cmd = peer_set.harness_cmd(data, task_dir, work / f"single_{s}", "--no_cache", "--no_progress")
        cmd[cmd.index("--model_args") + 1] = f"seed={s},max_frames={peer_set.FRAMES_PER_ITEM}"
        cmds.append(cmd)
    return cmds


def run(fast: bool = False) -> list[dict]:
    work = Path(tempfile.mkdtemp(prefix="bench_grid_"))
    try:
        data = work / "data"
        peer_set.make_dataset(data, fast)
        clips = len(list(data.glob("video_*.mp4")))
        task_dir = peer_set.write_task(work / "task")
        env, loads = peer_set.harness_env(), [peer_set.load_average()]
        singles = _singles(work, data, task_dir)
        peer_set.timed(singles[0], env, work)  # warm-up: byte code compiled, files in the page cache
        single_s = sum(peer_set.timed(cmd, env, work) for cmd in singles)
        grid_s = peer_set.timed([sys.executable, "-m", "harness", "grid", str(_grid_file(work, data, task_dir))], env, work)
        decodes = sum(1 for p in (work / "grid_cache" / "frames").glob("*/*") if p.is_file())
        loads.append(peer_set.load_average())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        {
            "figure": (
                f"grid of {MODELS} free models (random, seeds 0-3, 32 frames per clip) on the peer set, one "
                f"process, against {MODELS} single --no_cache runs: grid {grid_s:.2f} s, singles {single_s:.2f} s "
                f"in all (load average {' -> '.join(loads)})"
            ),
            "ours": grid_s,
            "baseline": single_s,
            "ratio": single_s / grid_s,
            "unit": "s",
            "target": "ratio >= 1 (the grid at least as fast as the single runs)",
        },
        {
            "figure": (
                f"decodes per clip in that grid: {decodes} frame-cache entries written for {clips} clips "
                f"({MODELS} single --no_cache runs: {MODELS} per clip)"
            ),
            "ours": decodes / clips,
            "baseline": float(MODELS),
            "ratio": MODELS / (decodes / clips),
            "unit": "decodes per clip",
            "target": "1 decode per clip whatever the number of models",
        },
    ]
