"""The synthetic RVTBench oracle scores 100 % on builds of every CycliST tier (L1-L5), and every VQA reference
states its canonical answer the way the rule judge reads it (issue 27 point 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_builders.rvtbench.facts import EVENT_WORDS, ObjectFacts
from harness_builders.rvtbench.vqa import answer_vocabulary, vqa_items
from harness_tasks.rvtbench.vqa_answers import rule_correct

ROOT = Path(__file__).resolve().parents[1]
TIERS = ("L1", "L2", "L3", "L4", "L5")
HEADLINE = {"segmentation": "J&F", "grounding": "IoU", "vqa": "accuracy", "summary": "ROUGE-L"}
TASK = {
    "segmentation": "rvtbench_seg",
    "grounding": "rvtbench_grounding",
    "vqa": "rvtbench_vqa",
    "summary": "rvtbench_summary",
}


def _facts(i: str, size: str, color: str, shape: str, events: dict[str, int]) -> ObjectFacts:
    attrs = {"size": size, "color": color, "material": "rubber", "shape": shape}
    return ObjectFacts(i, [0, 4, 8], attrs, list(events), f"a {size} {color} rubber {shape}", onsets=events)


def test_order_reference_states_its_answer_before_any_competing_word():
    """The issue's case: 'It appears after the start before the large gray rubber sphere changes colour'
    (canonical `before`) was read as `after`; the event phrase now holds no answer word."""
    facts = {
        "0": _facts("0", "small", "red", "cube", {"appears_later": 4, "moves_left": 8}),
        "1": _facts("1", "large", "gray", "sphere", {"changes_color": 8}),
        "2": _facts("2", "large", "blue", "cone", {"leaves_view": 0}),
    }
    facts["0"].relations = {"2": {"left_of"}}
    vocab = answer_vocabulary([facts])
    items = vqa_items({"instance": "0", "attrs": {"shape": "cube"}, "events": []}, facts, "the cube")
    kinds = {kind for kind, *_ in items}
    assert kinds == {"order", "relation", "count", "yes_no", "attribute", "event"}
    order = [(q, sentence, canonical) for kind, q, sentence, canonical in items if kind == "order"]
    assert (
        "Does the cube appear partway through the video before or after the large gray rubber sphere "
        "changes colour?"
    ) in [q for q, _, _ in order]
    for kind, question, sentence, canonical in items:
        assert rule_correct(sentence, canonical, kind, vocab[kind], vocab["event"]), (question, sentence)
    for phrase in EVENT_WORDS.values():
        assert not {"before", "after", "yes", "no"} & set(phrase.split()), phrase


def test_the_judge_reads_old_builds_references_as_they_state_their_answer():
    old = "It appears after the start before the large gray rubber sphere changes colour."
    events = ["appears after the start", "changes colour", "moves to the left"]
    assert rule_correct(old, "before", "order", ["after", "before"], events)
    assert not rule_correct(old, "after", "order", ["after", "before"], events)
    assert rule_correct(
        "The cube that moves to the left is to the right of it.", "right", "relation", [], events
    )
    assert not rule_correct("It appears after the start.", "after", "order", [], events)  # no answer given


def _build(*args: str) -> None:
    """`python -m harness build ARGS`, in this process."""
    from harness.cli.build_cmd import main

    assert main([*args, "--no_progress"]) == 0


def _oracle_is_perfect(rvt: Path, tmp_path: Path, monkeypatch) -> dict[str, int]:
    """Run the oracle on every task type the build has; every headline is 1 and nothing is invalid.

    The Python PTB tokenizer (one JVM per sample otherwise): the oracle's replies are the references."""
    from harness.config.run import RunConfig
    from harness.engine.runner import run

    monkeypatch.setenv("HARNESS_PTB_TOKENIZER", "python")
    rows = [json.loads(line) for line in (rvt / "test.jsonl").read_text().splitlines() if line.strip()]
    types = sorted({r["task_type"] for r in rows})
    out = run(
        RunConfig(
            tasks=[TASK[t] for t in types],
            model="oracle",
            data=str(rvt),
            output_path=str(tmp_path / "o"),
            cache_dir=str(tmp_path / "c"),
        )
    )
    counts = {}
    for t in types:
        res = out.results["task_results"][TASK[t]]
        assert res["n_invalid"] == 0 and res["n_errors"] == 0, (t, res)
        assert res["metrics"][HEADLINE[t]]["value"] == pytest.approx(1.0, abs=1e-6), (t, res["metrics"])
        counts[t] = res["n_samples"]
    vqa = out.results["task_results"].get("rvtbench_vqa")
    if vqa:
        assert vqa["tables"]["by_category_level"]["overall"]["accuracy"] == 1.0
    return counts


@pytest.mark.parametrize("tier", TIERS)
def test_oracle_scores_100_percent_on_a_small_build_of_every_tier(tier, tmp_path, monkeypatch):
    cy, rvt = tmp_path / "cy", tmp_path / "rvt"
    _build(
        "cyclist", "--tier", tier, "--num-scenes", "2", "--out", str(cy), "--size", "160x90", "--frames", "48"
    )
    _build("rvtbench", "--from-synthetic", str(cy), "--out", str(rvt), "--assign", "all", "--seed", "1")
    counts = _oracle_is_perfect(rvt, tmp_path, monkeypatch)
    assert set(counts) == set(TASK)  # --assign all: every task type has rows


@pytest.mark.slow
@pytest.mark.parametrize("tier", TIERS)
def test_oracle_scores_100_percent_on_a_default_build_of_every_tier(tier, tmp_path, monkeypatch):
    """Default sizes (160 frames at the tier's resolution), 6 scenes, the default rvtbench build."""
    cy, rvt = tmp_path / "cy", tmp_path / "rvt"
    _build("cyclist", "--tier", tier, "--num-scenes", "6", "--out", str(cy))
    _build("rvtbench", "--from-synthetic", str(cy), "--out", str(rvt), "--workers", "2")
    _oracle_is_perfect(rvt, tmp_path, monkeypatch)
