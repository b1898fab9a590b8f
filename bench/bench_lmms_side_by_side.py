"""The harness and lmms-eval side by side: the same items, the same frames decoded, a model that costs nothing.

Both tools run as a user runs them, each as a whole process (start-up, task loading, decoding, scoring,
writing results) over the peer set (bench/peer_set.py: 32 items over 8 synthetic 1080p videos of 160 frames,
4 items per video): lmms-eval 0.7.3 with its `dummy` model in video-bench mode (`decode_num_frames=32`: it
decodes 32 uniformly sampled frames of every item's video, full size), the harness with the `random` baseline
over a task that samples the same 32 frames at full size (`--model_args max_frames=32`: the baseline then
takes 32 frames per clip, as a real model would).

The harness runs four ways: `--no_cache` (cold: nothing kept on disk; each clip still decoded once and shared
by the items on it), an empty cache dir (the frame cache is written), with its frame cache (the frames are
cached from an earlier run, the answers are not: what a second model or a changed prompt costs), and warm
(frames and responses cached). Rounds alternate the tools (3; 1 in fast mode) and each figure is the median
harness time over the median lmms-eval time. Bars (issue 29): cold <= 0.15 x, frame cache <= 0.08 x,
warm <= 0.03 x.

lmms-eval is not a dependency of the project: point `LMMS_EVAL_PYTHON` at an interpreter where
`pip install "lmms-eval==0.7.3" "filelock<4"` was run (its own venv: it pins packages the harness does not).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench import peer_set

#: the interpreter with lmms-eval installed (tests skip this script where it is not set)
REQUIRES_ENV = "LMMS_EVAL_PYTHON"

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

#: harness state -> bar on harness / lmms-eval (None: context)
BARS = {"--no_cache": 0.15, "empty cache dir": None, "frames cached": 0.08, "warm": 0.03}


def _lmms_cmd(lmms_python: str, task_dir: Path, out: Path) -> list[str]:
    return [
        lmms_python, "-m", "lmms_eval", "--model", "dummy", "--model_args",
        f"decode_num_frames={peer_set.FRAMES_PER_ITEM}", "--tasks", peer_set.TASK, "--include_path",
        str(task_dir), "--batch_size", "1", "--output_path", str(out),
    ]  # fmt: skip


def _harness_round(data: Path, task_dir: Path, work: Path, n: int) -> dict[str, float]:
    """One round of the four harness states (a fresh cache dir per round)."""
    env = peer_set.harness_env()
    out, cache = work / "out", work / f"cache{n}"
    base = peer_set.harness_cmd(data, task_dir, out, "--cache_dir", str(cache))
    times = {"--no_cache": peer_set.timed(peer_set.harness_cmd(data, task_dir, out, "--no_cache"), env, work)}
    times["empty cache dir"] = peer_set.timed(base, env, work)
    for db in cache.glob("responses.sqlite*"):  # keep the decoded frames, forget the answers
        db.unlink()
    times["frames cached"] = peer_set.timed(base, env, work)
    times["warm"] = peer_set.timed(base, env, work)
    shutil.rmtree(cache, ignore_errors=True)
    return times


def run(fast: bool = False) -> list[dict]:
    lmms_python = os.environ.get(REQUIRES_ENV)
    if not lmms_python or not Path(lmms_python).exists():
        raise RuntimeError(
            'set LMMS_EVAL_PYTHON to a python where `pip install "lmms-eval==0.7.3" "filelock<4"` ran'
        )
    work = Path(tempfile.mkdtemp(prefix="bench_lmms_"))
    try:
        data = work / "data"
        jsonl = peer_set.make_dataset(data, fast)
        ours_dir = peer_set.write_task(work / "harness_task")
        theirs_dir = work / "lmms_task"
        theirs_dir.mkdir()
        (theirs_dir / f"{peer_set.TASK}.yaml").write_text(LMMS_TASK.format(data=jsonl))
        (theirs_dir / "utils.py").write_text(LMMS_UTILS.format(root=str(data)))
        lmms_env = {**peer_set.harness_env(), "PYTHONPATH": ""}
        theirs_cmd = _lmms_cmd(lmms_python, theirs_dir, work / "lmms_out")
        peer_set.timed(theirs_cmd, lmms_env, work)  # warm-ups: byte code compiled, files in the page cache
        peer_set.timed(
            peer_set.harness_cmd(data, ours_dir, work / "out", "--no_cache"), peer_set.harness_env(), work
        )
        loads, theirs, ours = [peer_set.load_average()], [], {k: [] for k in BARS}
        for n in range(1 if fast else 3):  # alternately, so both tools see the same load
            theirs.append(peer_set.timed(theirs_cmd, lmms_env, work))
            for state, wall in _harness_round(data, ours_dir, work, n).items():
                ours[state].append(wall)
        loads.append(peer_set.load_average())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _rows(theirs, ours, loads)


def _span(walls: list[float]) -> str:
    return f"{statistics.median(walls):.2f} s [{min(walls):.2f}-{max(walls):.2f}]"


def _rows(theirs: list[float], ours: dict[str, list[float]], loads: list[str]) -> list[dict]:
    lmms = statistics.median(theirs)
    context = (
        f"medians of {len(theirs)} alternating rounds [range]: lmms-eval {_span(theirs)}; harness "
        + ", ".join(f"{k} {_span(v)}" for k, v in ours.items())
        + f"; load average {' -> '.join(loads)}"
    )
    rows = []
    for state, bar in BARS.items():
        share = statistics.median(ours[state]) / lmms
        per_round = ", ".join(f"{o / t:.3f}" for o, t in zip(ours[state], theirs, strict=True))
        rows.append(
            {
                "figure": (
                    f"whole run vs lmms-eval 0.7.3, peer set (32 items over 8 1080p videos, 32 frames per item), "
                    f"harness {state} / lmms-eval (per round {per_round}; {context})"
                ),
                "ours": share,
                "baseline": bar or 1.0,
                "ratio": (bar or 1.0) / share,
                "unit": "x",
                "target": f"<= {bar} x of lmms-eval (ratio >= 1)" if bar else "context",
            }
        )
    return rows


if __name__ == "__main__":
    for row in run(fast="--fast" in sys.argv):
        print(f"{row['figure']}: {row['ours']:.3f}")
