"""The peer set of issue 29 and the lmms-eval side by side: 32 items over 8 synthetic 1080p videos (160 frames,
4 items per video), 32 frames sampled per item at full size, with a model that costs nothing.

Shared by bench_cold_run.py (against the decoding limit) and bench_lmms_side_by_side.py (against lmms-eval).
Fast mode: 2 small videos, for the test suite's smoke run (figures meaningless).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from harness.frames.writer import write_video

REPO = Path(__file__).resolve().parent.parent
TASK = "bench_side_by_side"
FRAMES_PER_ITEM = 32

HARNESS_TASK = f"""\
task: {TASK}
version: 1
dataset:
  split: test
doc_id: id
media_field: video
target_field: answer
answer_space: [A, B, C, D]
prompt:
  text: "{{{{ question }}}}"
frames:
  strategy: uniform
  count: {FRAMES_PER_ITEM}
generation:
  max_new_tokens: 8
metrics:
  - name: accuracy
    headline: true
"""


def _videos(root: Path, count: int, width: int, height: int, frames: int) -> list[str]:
    names = []
    for v in range(count):
        rng = np.random.default_rng(v)
        base = rng.integers(0, 255, (height // 8, width // 8, 3), dtype=np.uint8)
        clip = (np.repeat(np.repeat(np.roll(base, t, axis=1), 8, axis=0), 8, axis=1) for t in range(frames))
        name = f"video_{v}.mp4"
        write_video(root / name, clip, fps=30.0, threads=0)  # the bytes need not be reproducible here
        names.append(name)
    return names


def make_dataset(root: Path, fast: bool) -> Path:
    """Videos and `test.jsonl` (4 questions per video) under `root`; returns the jsonl."""
    root.mkdir(parents=True, exist_ok=True)
    size = (320, 240, 30) if fast else (1920, 1080, 160)
    names = _videos(root, 2 if fast else 8, *size)
    rows = [
        {"id": f"q{v}_{q}", "video": name, "question": f"Question {q} about the video?", "answer": "ABCD"[q]}
        for v, name in enumerate(names)
        for q in range(4)
    ]
    (root / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root / "test.jsonl"


def write_task(folder: Path) -> Path:
    """The harness task folder for the peer set."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{TASK}.yaml").write_text(HARNESS_TASK)
    return folder


def harness_cmd(data: Path, task_dir: Path, out: Path, *flags: str) -> list[str]:
    """A whole harness run over the peer set: the `random` baseline given the task's frames per clip."""
    return [
        sys.executable, "-m", "harness", "--tasks", TASK, "--model", "random",
        "--model_args", f"max_frames={FRAMES_PER_ITEM}", "--include_path", str(task_dir), "--data", str(data),
        "--output_path", str(out), *flags,
    ]  # fmt: skip


def harness_env() -> dict[str, str]:
    """The environment of a harness run: offline, the source tree first, and byte-code caching on (an
    installed harness has its .pyc files; without them every start compiles the sources again)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of a whole process."""
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])} ... exited {out.returncode}: {out.stderr[-1500:]}")
    return wall


def pyav_limit(data: Path) -> float:
    """Seconds PyAV takes to decode each video of the set once (all frames, FFmpeg's threads) and convert
    the frames an item samples to RGB: the floor a cold run cannot go below without skipping decode work."""
    import av

    from harness.frames.sampler import uniform_positions

    start = time.perf_counter()
    for video in sorted(data.glob("video_*.mp4")):
        with av.open(str(video)) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            wanted = set(uniform_positions(stream.frames, FRAMES_PER_ITEM))
            kept = [
                f.to_ndarray(format="rgb24") for i, f in enumerate(container.decode(stream)) if i in wanted
            ]
            assert len(kept) == len(wanted), f"{video}: {len(kept)} of {len(wanted)} frames decoded"
    return time.perf_counter() - start


def load_average() -> str:
    """The 1-minute load average now (the box is shared: the figures are read beside it)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "n/a"
