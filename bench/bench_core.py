"""Core speed figures: start-up time of `python -m harness ls tasks`, and evaluator throughput.

- Start-up: wall time of `python -m harness ls tasks` against the bar of 1.5 s (and the bare interpreter's
  start in the same run, for context). Task configs are indexed without importing plugin code or torch.
- Throughput: samples per second of the whole evaluator (request building, cache keys, response-cache
  reads, parsing, scoring, aggregation with bootstrap CIs) with the `oracle` model and warm caches,
  on one core, against the bar of 300 samples/s; the baseline is reading the same cached responses
  straight from SQLite, the floor any evaluator on this cache pays.
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "tests" / "plugin_pkg"


def _wall(cmd: list[str], reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def startup(fast: bool) -> dict:
    reps = 2 if fast else 7
    ours = _wall([sys.executable, "-m", "harness", "ls", "tasks"], reps)
    bare = _wall([sys.executable, "-c", "pass"], reps)
    return {
        "figure": "start-up: `harness ls tasks` wall (s)",
        "ours": ours,
        "baseline": 1.5,
        "ratio": 1.5 / ours,
        "unit": "s",
        "target": "< 1.5 s (ratio > 1)",
        "context": f"bare interpreter {bare:.3f} s",
    }


def throughput(fast: bool) -> dict:
    sys.path.insert(0, str(PLUGIN))
    from harness_colors.dataset import make_dataset

    from harness.config.run import RunConfig
    from harness.engine.runner import run
    from harness.plugins.loading import load_plugins

    n_videos = 8 if fast else 150
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        make_dataset(tmp / "data" / "colors", n_test=n_videos, n_train=2, frames=8, size=(32, 32))
        state = load_plugins(include_paths=[PLUGIN / "harness_colors" / "tasks"], use_entry_points=False)
        state.registry.add(load_plugins(env={"HARNESS_PLUGINS": "baselines"}).registry.get("model", "oracle"))
        cfg = RunConfig(
            tasks=["colors_qa"], model="oracle", data=tmp / "data", cache_dir=tmp / "cache", progress=False
        )
        run(cfg, state)  # warm the caches
        t = time.perf_counter()
        out = run(cfg, state)
        elapsed = time.perf_counter() - t
        n = out.results["task_results"]["colors_qa"]["n_samples"]
        conn = sqlite3.connect(tmp / "cache" / "responses.sqlite")
        t = time.perf_counter()
        rows = conn.execute("SELECT value FROM responses").fetchall()
        [json.loads(v) for (v,) in rows]
        floor = time.perf_counter() - t
    ours = n / elapsed
    return {
        "figure": "evaluator throughput, oracle, warm caches (samples/s)",
        "ours": ours,
        "baseline": 300.0,
        "ratio": ours / 300.0,
        "unit": "samples/s",
        "target": ">= 300 samples/s (ratio >= 1)",
        "context": f"{n} samples; raw SQLite read of the same responses {n / floor:.0f} samples/s",
    }


def run(fast: bool = False) -> list[dict]:
    return [startup(fast), throughput(fast)]


if __name__ == "__main__":
    for row in run(fast="--fast" in sys.argv):
        print(
            f"{row['figure']}: ours {row['ours']:.3f} {row['unit']}, baseline {row['baseline']:.3f}, "
            f"ratio {row['ratio']:.2f} ({row['target']}); {row['context']}"
        )
