"""The global random generators, seeded as lmms-eval / lm-eval seed them, before each task is scored.

lmms-eval's `simple_evaluate` seeds Python's `random` (0), NumPy's global generator (1234) and torch's (1234)
once before it evaluates; a task's parser that falls back to `random.choice` on an unusable reply (nextqa,
longvideobench, ...) then gives the same numbers in every identical run. The harness seeds the same
generators before it loads the data and again before it scores each task (in doc order), so a task's numbers
do not depend on which other tasks ran before it. The values go into the results' config as lm-eval names
them (`random_seed`, `numpy_seed`, `torch_seed`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Seeds:
    """The seeds of Python's `random`, NumPy's and torch's global generators (lmms-eval's defaults)."""

    random_seed: int = 0
    numpy_seed: int = 1234
    torch_seed: int = 1234

    def to_config(self) -> dict[str, int]:
        """lm-eval's results-config keys."""
        return asdict(self)


def seed_generators(seeds: Seeds) -> None:
    """Seed `random`, NumPy and (when it is imported: a task that uses it has imported it) torch."""
    random.seed(seeds.random_seed)
    try:
        import numpy as np  # noqa: PLC0415 - a core dependency, imported where it is used

        np.random.seed(seeds.numpy_seed)
    except ImportError:  # pragma: no cover - numpy is a core dependency
        pass
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "manual_seed"):
        torch.manual_seed(seeds.torch_seed)


def score_in_order(
    instances: list, record: Callable[[Any], Any], rescore: Callable[[Any, Any], None], seeds: Seeds
) -> list[tuple[int, Any]]:
    """(index, record) of every instance, each task's scored in doc order right after `seed_generators`.

    `instances` come task by task, docs in order; `record(inst)` builds (and scores) one SampleRecord,
    memoised; a record `--strict` already scored on arrival (in arrival order) is scored again here, in order."""
    out: list[tuple[int, Any]] = []
    current = None
    for inst in instances:
        if inst.task is not current:
            current = inst.task
            seed_generators(seeds)
        early = inst.rec is not None
        rec = record(inst)
        if early and rec.raw is not None and not rec.error:
            rescore(inst.task, rec)
        out.append((inst.index, rec))
    return out


def rescore_in_order(
    tasks: list, per_task: dict[str, list], rescore: Callable[[Any, Any], None], seeds: Seeds
) -> None:
    """`rescore(task, record)` every task's records again in doc order after `seed_generators` (a multi-rank
    run, whose ranks scored interleaved shards, and `--rescore`), each task's answers handed to its
    `prepare_scoring` hook first, once; `rescore` keeps harness-side errors."""
    for task in tasks:
        seed_generators(seeds)
        records = per_task.get(task.name, [])
        answers = [r if isinstance(r, dict) else r.answer() for r in records]  # samples-file lines or SampleRecords
        task.prepare_scoring([a for a in answers if a.get("raw") is not None])
        for rec in records:
            rescore(task, rec)
