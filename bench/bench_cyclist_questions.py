"""Question generation speed (scenes per second on one core) for CycliST scenes.

Ours: `generate_questions` on parsed scene dicts (all twelve families, `mode="exhaustive"`: every template tried once per
scene). Baseline, measured in the same run: the same generation preceded by a plain per-frame reading of
the scene (Python loops over every relationship pair and frame into sets, as a straightforward engine
that quantifies over frames would do), i.e. what the vectorised state reader saves. Target: >= 200 scenes/s.
"""

from __future__ import annotations

import random
import time

from harness_builders.cyclist.questions import generate_questions
from harness_builders.cyclist.questions.sample_scenes import random_scene


def _scenes(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    return [
        random_scene(rng, n_cyclic=rng.choice([1, 2, 3]), n_clutter=rng.choice([2, 3, 4, 6]), index=i)
        for i in range(n)
    ]


def _naive_read(scene: dict) -> dict:
    """Per-frame relation sets and per-object frame loops, the unvectorised way."""
    rels = {}
    for rel, frames in scene["relationships"].items():
        per_frame = []
        for pairs in frames.values():
            per_frame.append({(i, j) for i, j in pairs})
        rels[rel] = per_frame
    ever = {rel: {p for s in frames for p in s} for rel, frames in rels.items()}
    always = {rel: set.intersection(*frames) if frames else set() for rel, frames in rels.items()}
    return {"ever": ever, "always": always}


def _rate(fn, scenes: list[dict], repeats: int) -> float:
    """Scenes per CPU second of this process (per core; wall time on a shared machine is noise)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn(scenes)
        best = min(best, time.process_time() - t0)
    return len(scenes) / best


def run(fast: bool = False) -> list[dict]:
    """Scenes per second of question generation, ours vs the per-frame-loop baseline."""
    scenes = _scenes(40 if fast else 300)
    repeats = 1 if fast else 3
    ours = _rate(lambda s: generate_questions(s, seed=0, mode="exhaustive"), scenes, repeats)

    def baseline(s):
        for scene in s:
            _naive_read(scene)
        generate_questions(s, seed=0, mode="exhaustive")

    base = _rate(baseline, scenes, repeats)
    return [
        {
            "figure": "cyclist question generation (all 12 families)",
            "ours": round(ours, 1),
            "baseline": round(base, 1),
            "ratio": round(ours / base, 3),
            "unit": "scenes/s/core",
            "target": ">= 200 scenes/s/core",
        }
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
