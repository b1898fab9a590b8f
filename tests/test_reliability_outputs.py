"""Answers versus errors: whatever a model returns is scored (valid, or the task's invalid answer), never an
error that leaves the sample out of a mean. Fuzzed outputs go through the real `score_record` path."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from test_reliability_parsers import task_docs  # noqa: F401 - the shared fixture: docs of every built-in task

from harness.config.run import RunConfig
from harness.config.schema import parse_task_config
from harness.contract.messages import Capabilities, Response
from harness.contract.model import Model
from harness.data.task import Task
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry
from harness.scoring.recording import score_record
from harness.scoring.task_results import aggregate_task
from harness_metrics import encode_rle


@pytest.fixture(scope="module")
def rvt_demo(tmp_path_factory):
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    (ds,) = RvtbenchBuilder().demo(tmp_path_factory.mktemp("rvt"), 0)
    return ds.data_dir


class WrongSizeMasks(Model):
    """The oracle's masks for the first request; masks one pixel too big (per side) for every other one."""

    name = "wrong_size_masks"
    uses_hints = True
    capabilities = Capabilities(video=True, max_frames=1, structured_outputs=frozenset({"masks"}))

    def __init__(self, **kw):
        super().__init__(**kw)
        self.calls = 0

    def generate(self, requests):
        out = []
        for r in requests:
            masks = r.hints["oracle_answer"]["structured"]["masks"]
            if self.calls:
                h, w = masks[0]["size"]
                masks = encode_rle(np.ones((len(masks), h + 1, w + 1), bool))
            self.calls += 1
            out.append(Response(text="", structured={"masks": masks}))
        return out


def test_wrong_size_masks_score_zero_not_dropped(rvt_demo, tmp_path):
    state = load_plugins()
    state.registry.add(Entry("model", "wrong_size_masks", WrongSizeMasks, plugin="test"))
    cfg = RunConfig(
        tasks=["rvtbench_seg"],
        model="wrong_size_masks",
        data=rvt_demo,
        limit=4,
        batch_size=1,
        cache_dir=tmp_path / "c",
        progress=False,
    )
    res = run(cfg, state).results["task_results"]["rvtbench_seg"]
    assert res["n_errors"] == 0 and res["n_invalid"] == 3 and res["n_scored"] == 4
    assert res["metrics"]["J&F"]["n"] == 4
    assert res["metrics"]["J&F"]["value"] == pytest.approx(0.25)


def _rle_garbage(h, w, n):
    """Structured mask answers a model might send that no scorer can use."""
    return [
        {"masks": encode_rle(np.ones((n, h + 3, w), bool))},  # wrong size
        {"masks": encode_rle(np.ones((n, 1, 1), bool))},  # tiny
        {"masks": [{"size": [h, w], "counts": "!!!\x00garbage"}] * n},  # undecodable string counts
        {"masks": [{"size": [h, w], "counts": [h * w * 9]}] * n},  # counts longer than the mask
        {"masks": [{"size": [-1, 1e308], "counts": []}] * n},  # nonsense size
        {"masks": [{"size": [h, w]}] * n},  # no counts
        {"masks": [1, 2, 3][:n] + [None] * max(0, n - 3)},  # not RLE
        {"masks": "everything"},
        {"masks": {str(i): {"size": [h, w], "counts": "x"} for i in range(99)}},
    ]


FUZZED_TEXT = [
    "1e999",
    "-1e308",
    "nan",
    "NaN",
    "inf",
    "9" * 400,
    "The answer is 1e999 things.",
    '{"coordinates": "pixel", "boxes": [{"frame": 0, "bbox_xyxy": [0, 0, 1e308, 1e308]}]}',
    '{"coordinates": "pixel", "boxes": [{"frame": 0, "bbox_xywh": [-1e9, -1e9, 1e300, 5]}]}',
    '{"coordinates": "normalized", "boxes": [{"frame": 0, "bbox_xyxy": [NaN, 0, 1, 1]}]}',
    '{"answer": 1e999}',
    '{"answer": "' + "B" * 10000 + '"}',
    "\ud800 lone surrogate",
]
FUZZED_STRUCTURED_BOXES = [
    {"boxes": [[[float("nan"), 0, 1, 1]]]},
    {"boxes": [[[1e308, 1e308, 1e308, 1e308]]]},
    {"boxes": [[[-5, -5, 1e9, 1e9]]]},
    {"boxes": [[["a", "b", "c", "d"]]]},
    {"boxes": [[[0, 0, 1]]]},
    {"boxes": 7},
    {"boxes": {"0": [[0, 0, float("inf"), 1]]}},
]


def _fuzz_cases(doc: dict) -> list[tuple[str, object]]:
    frames = (doc.get("answer") or {}).get("frames") if isinstance(doc.get("answer"), dict) else None
    cases: list[tuple[str, object]] = [(t, None) for t in FUZZED_TEXT]
    if frames:
        n = len(frames)
        h, w = int(doc.get("height") or 8), int(doc.get("width") or 8)
        boxes = [
            {"boxes": (b["boxes"] * n if isinstance(b["boxes"], list) else b["boxes"])}
            for b in FUZZED_STRUCTURED_BOXES
        ]
        cases += [("", s) for s in _rle_garbage(h, w, n) + boxes]
    return cases


def test_fuzzed_outputs_are_answers_never_errors(task_docs):  # noqa: F811 - the imported fixture
    """Every fuzzed output is scored (finite numbers or not applicable) and never an error; the aggregate
    (the paper's tables) still runs over all of them."""
    n_cases = 0
    names = set()
    for _name, task, docs in task_docs:
        names.add(task.name)
        records = []
        for doc in docs:
            for text, structured in _fuzz_cases(doc):
                rec = {"doc_id": doc["doc_id"], "doc": doc, "target": task.target(doc), "raw": text}
                rec.update(structured=structured, error=None, parsed=None, scores={})
                score_record(task, rec)
                assert rec["error"] is None, (task.name, text, structured, rec["error"])
                assert isinstance(rec["parsed"]["valid"], bool)
                for key, value in rec["scores"].items():
                    assert value is None or math.isfinite(value), (task.name, key, value, text)
                json.dumps(rec["parsed"], default=str)
                records.append(rec)
                n_cases += 1
        aggregate_task(task, records)
    assert {"rvtbench_seg", "rvtbench_grounding", "cyclist_l1", "cyclist_caption_l1"} <= names
    assert n_cases >= 300  # docs/reliability.md gives the count (305)


class _T(Task):
    """A real task without hooks (the default parser, filters none) whose score the test chooses."""

    def __init__(self, score):
        self._score = score  # set before Task.__init__: a built task is immutable
        super().__init__(parse_task_config({"task": "t", "version": 1}, "t.yaml"), Path(__file__).parent)

    def score(self, parsed, target, doc):
        return self._score(parsed)


def test_a_scorer_that_cannot_use_the_answer_scores_it_invalid():
    def score(parsed):
        if parsed.valid:
            raise ValueError("operands could not be broadcast")
        return {"acc": 0.0}

    rec = {"raw": "x", "doc": {}, "target": 1, "error": None}
    score_record(_T(score), rec)
    assert rec["error"] is None and rec["scores"] == {"acc": 0.0}
    assert rec["parsed"]["valid"] is False
    assert rec["parsed"]["unusable"] == "the default score raised ValueError: operands could not be broadcast"


def test_an_infinite_score_is_an_invalid_answer_and_a_scorer_that_always_fails_is_a_score_error():
    rec = {"raw": "x", "doc": {}, "target": 1, "error": None}
    score_record(_T(lambda p: {"mae": math.inf} if p.valid else {"mae": None}), rec)
    assert rec["error"] is None and rec["parsed"]["valid"] is False and rec["scores"] == {"mae": None}
    rec = {"raw": "x", "doc": {}, "target": 1, "error": None}
    score_record(_T(lambda p: 1 / 0), rec)
    assert rec["error"]["kind"] == "score" and rec["error"]["reason"] == "ZeroDivisionError"
    assert rec["error"]["message"].startswith("the default score raised ZeroDivisionError: division by zero")
