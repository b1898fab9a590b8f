"""The harness and lmms-eval side by side: the same items, the same frames decoded, a model that costs nothing.

Both tools run as a user runs them, each as a whole process (start-up, task loading, decoding, scoring,
writing results): lmms-eval 0.7.3 with its `dummy` model in video-bench mode (`decode_num_frames=16`: it
decodes 16 uniformly sampled frames of every video, full size), the harness with the `random` baseline over a
task that samples the same 16 frames at full size (`--model_args max_frames=16`: the
baseline then takes 16 frames per clip, as a real model would). Items: 32 questions over 8 synthetic 1080p videos.

The harness runs four ways: `--no_cache` (nothing remembered), an empty cache dir (each clip decoded once,
then served from the frame cache to the other questions on it), cold with its frame cache (the frames are
cached from an earlier run, the answers are not: what a second model or a changed prompt costs), and warm
(frames and responses cached). The figure is harness / lmms-eval wall time in the same run; the bar is
<= 0.1 cold with the frame cache (ratio = 0.1 / (ours / theirs), >= 1 meets it).

lmms-eval is not a dependency of the project: point `LMMS_EVAL_PYTHON` at an interpreter where
`pip install "lmms-eval==0.7.3" "filelock<4"` was run (its own venv: it pins packages the harness does not).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from harness.frames.writer import write_video

#: the interpreter with lmms-eval installed (tests skip this script where it is not set)
REQUIRES_ENV = "LMMS_EVAL_PYTHON"

HARNESS_TASK = """\
task: bench_side_by_side
version: 1
dataset:
  split: test
doc_id: id
media_field: video
target_field: answer
answer_space: [A, B, C, D]
prompt:
  text: "{{ question }}"
frames:
  strategy: uniform
  count: 16
generation:
  max_new_tokens: 8
metrics:
  - name: accuracy
    headline: true
"""

LMMS_TASK = """\
task: bench_side_by_side
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_target: answer
generation_kwargs:
  max_new_tokens: 8
  temperature: 0
process_results: !function utils.process_results
metric_list:
  - metric: accuracy
    aggregation: mean
    higher_is_better: true
"""

LMMS_UTILS = """\
ROOT = {root!r}


def doc_to_visual(doc):
    return [ROOT + "/" + doc["video"]]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return doc["question"]


def process_results(doc, results):
    return {{"accuracy": float(results[0].strip() == doc["answer"])}}
"""


def _videos(root: Path, count: int, width: int, height: int, frames: int) -> list[str]:
    names = []
    for v in range(count):
        rng = np.random.default_rng(v)
        base = rng.integers(0, 255, (height // 8, width // 8, 3), dtype=np.uint8)
        clip = []
        for t in range(frames):
            frame = np.repeat(np.repeat(np.roll(base, t, axis=1), 8, axis=0), 8, axis=1)
            clip.append(frame)
        name = f"video_{v}.mp4"
        write_video(root / name, clip, fps=30.0)
        names.append(name)
    return names


def _dataset(root: Path, fast: bool) -> Path:
    size = (320, 240, 30) if fast else (1920, 1080, 120)
    names = _videos(root, 2 if fast else 8, *size)
    rows = [
        {"id": f"q{v}_{q}", "video": name, "question": f"Question {q} about the video?", "answer": "ABCD"[q]}
        for v, name in enumerate(names)
        for q in range(4)
    ]
    (root / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root / "test.jsonl"


def _timed(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... exited {out.returncode}: {out.stderr[-1500:]}")
    return wall


def run(fast: bool = False) -> list[dict]:
    lmms_python = os.environ.get(REQUIRES_ENV)
    if not lmms_python or not Path(lmms_python).exists():
        raise RuntimeError(
            "set LMMS_EVAL_PYTHON to a python where `pip install \"lmms-eval==0.7.3\" \"filelock<4\"` ran"
        )
    work = Path(tempfile.mkdtemp(prefix="bench_lmms_"))
    repo = Path(__file__).resolve().parent.parent
    try:
        data = work / "data"
        data.mkdir()
        jsonl = _dataset(data, fast)
        ours_dir, theirs_dir = work / "harness_task", work / "lmms_task"
        ours_dir.mkdir()
        theirs_dir.mkdir()
        (ours_dir / "bench_side_by_side.yaml").write_text(HARNESS_TASK)
        (theirs_dir / "bench_side_by_side.yaml").write_text(LMMS_TASK.format(data=jsonl))
        (theirs_dir / "utils.py").write_text(LMMS_UTILS.format(root=str(data)))
        env = {**os.environ, "PYTHONPATH": str(repo), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
        theirs = _timed(
            [lmms_python, "-m", "lmms_eval", "--model", "dummy", "--model_args", "decode_num_frames=16",
             "--tasks", "bench_side_by_side", "--include_path", str(theirs_dir), "--batch_size", "1",
             "--output_path", str(work / "lmms_out")],
            {**env, "PYTHONPATH": ""},
            work,
        )
        base = [sys.executable, "-m", "harness", "--tasks", "bench_side_by_side", "--model", "random",
                "--model_args", "max_frames=16", "--include_path", str(ours_dir), "--data", str(data), "--output_path", str(work / "out")]
        no_cache = _timed([*base, "--no_cache"], env, work)
        cache = work / "cache"
        empty = _timed([*base, "--cache_dir", str(cache)], env, work)
        for db in cache.glob("responses.sqlite*"):  # keep the decoded frames, forget the answers
            db.unlink()
        cold = _timed([*base, "--cache_dir", str(cache)], env, work)
        warm = _timed([*base, "--cache_dir", str(cache)], env, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    context = (
        f"lmms-eval {theirs:.2f} s; harness --no_cache {no_cache:.2f} s, empty cache dir {empty:.2f} s, "
        f"frames cached {cold:.2f} s, warm {warm:.2f} s"
    )
    rows = [
        {
            "figure": "whole run vs lmms-eval 0.7.3, frames cached, answers not (harness / lmms-eval)",
            "ours": cold / theirs,
            "baseline": 0.1,
            "ratio": 0.1 / (cold / theirs),
            "unit": "x",
            "target": "<= 0.1x of lmms-eval (ratio >= 1)",
            "context": context,
        },
        {
            "figure": "whole run vs lmms-eval 0.7.3, empty cache dir (harness / lmms-eval)",
            "ours": empty / theirs,
            "baseline": 1.0,
            "ratio": theirs / empty,
            "unit": "x",
            "target": "context",
            "context": context,
        },
        {
            "figure": "whole run vs lmms-eval 0.7.3, --no_cache (harness / lmms-eval)",
            "ours": no_cache / theirs,
            "baseline": 1.0,
            "ratio": theirs / no_cache,
            "unit": "x",
            "target": "context",
            "context": context,
        },
        {
            "figure": "whole run vs lmms-eval 0.7.3, warm caches (harness / lmms-eval)",
            "ours": warm / theirs,
            "baseline": 1.0,
            "ratio": theirs / warm,
            "unit": "x",
            "target": "context",
            "context": context,
        },
    ]
    return rows


if __name__ == "__main__":
    for row in run(fast="--fast" in sys.argv):
        print(f"{row['figure']}: {row['ours']:.3f} ({row['context']})")
