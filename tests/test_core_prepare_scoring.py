"""The `prepare_scoring` task hook: every answer once, before the per-sample scores; one that fails costs only
speed; it is never recorded in the results' task config (it may change no score)."""

from __future__ import annotations

import logging

from harness.api import TaskConfig
from harness.data.task import Task
from harness.engine.seeding import Seeds
from harness.scoring.recording import score_in_order

HOOKS = """
seen = []

def prepare(records):
    seen.append([r["raw"] for r in records])

def broken(records):
    raise RuntimeError("tokenizer missing")
"""


def _task(tmp_path, hook: str) -> Task:
    (tmp_path / "hooks.py").write_text(HOOKS)
    cfg = TaskConfig(task="t", version=1, hooks={"prepare_scoring": f"hooks.py:{hook}"})
    return Task(cfg, tmp_path)


def _records(n: int) -> list[dict]:
    return [{"raw": f"answer {i}", "structured": None, "doc": {"doc_id": str(i)}, "target": "x"} for i in range(n)]


def test_the_hook_sees_every_answer_once_before_the_scores(tmp_path):
    task = _task(tmp_path, "prepare")
    seen = task.hook("prepare_scoring").__globals__["seen"]
    scored: list[int] = []
    records = _records(3)
    score_in_order([task], {"t": records}, lambda t, r: scored.append(len(seen)), Seeds())
    assert seen == [["answer 0", "answer 1", "answer 2"]] and scored == [1, 1, 1]
    assert "prepare_scoring" not in task.config.model_dump()["hooks"]  # not part of the recorded config
    assert ("hooks.prepare_scoring", "hooks.py:prepare") in task.references()  # but checked like any hook


def test_a_failing_hook_is_logged_and_scoring_goes_on(tmp_path, caplog):
    task = _task(tmp_path, "broken")
    scored: list[str] = []
    with caplog.at_level(logging.WARNING, logger="harness.data.task"):
        score_in_order([task], {"t": _records(2)}, lambda t, r: scored.append(r["raw"]), Seeds())
    assert scored == ["answer 0", "answer 1"]
    assert "task 't': the prepare_scoring hook raised RuntimeError: tokenizer missing" in caplog.text
