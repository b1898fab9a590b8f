"""RVTBench tasks: oracle is perfect, shifted boxes score the hand IoU, malformed answers count as empty."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import run_in
from harness.api import Response
from harness_metrics import encode_rle, ptb_java
from harness_tasks.rvtbench.loader import load_samples
from harness_tasks.rvtbench.parsing import parse
from harness_tasks.rvtbench.scoring import score

FIXTURE = Path(__file__).resolve().parents[1] / "tasks" / "rvtbench" / "fixtures" / "release"


@pytest.fixture(scope="module")
def demo(rvtbench_demo) -> Path:
    """The builder's demo set (shared by the session)."""
    return rvtbench_demo


def test_oracle_scores_perfectly_with_full_category_level_tables(demo, tmp_path):

    out = run_in(tmp_path, ["rvtbench"], "oracle", str(demo))
    res = out.results["task_results"]
    assert res["rvtbench_seg"]["metrics"]["J&F"]["value"] == 1.0
    for task, keys, best in (
        ("rvtbench_seg", ("J", "F", "J&F"), 1.0),
        ("rvtbench_grounding", ("cIoU", "gIoU", "AP@50"), 1.0),
        ("rvtbench_vqa", ("BLEU-4", "ROUGE-L"), 1.0),
        ("rvtbench_summary", ("BLEU-4", "ROUGE-L"), 1.0),
    ):
        table = res[task]["tables"]["by_category_level"]
        assert set(table) == {"overall"} | {
            f"{c}|L{lv}" for c in ("semantic", "spatial", "temporal") for lv in (1, 2, 3, 4)
        }
        assert table["overall"]["n_samples"] == res[task]["n_samples"] > 0
        for cell in table.values():
            if cell["n_samples"]:
                assert all(cell[k] == pytest.approx(best) for k in keys), (task, cell)
        if task in ("rvtbench_vqa", "rvtbench_summary"):
            assert table["overall"]["CIDEr-D"] == pytest.approx(10.0)
            assert (
                table["overall"]["BERTScore"] is None
                and "not computed" in table["overall"]["BERTScore_reason"]
            )


def _doc(boxes, frames=(0, 5)) -> dict:
    return {
        "id": "g",
        "task_type": "grounding",
        "width": 20,
        "height": 10,
        "answer": {"frames": list(frames), "boxes": boxes},
    }


def test_shifted_boxes_score_the_hand_computed_iou():
    doc = _doc([[[2, 2, 4, 4]], [[10, 0, 5, 5]]])
    text = json.dumps(
        {
            "coordinates": "pixel",
            "boxes": [
                {
                    "frame": 0,
                    "bbox_xyxy": [4, 2, 8, 6],
                },  # shifted 2 px right: inter 2x4 = 8, union 16 + 16 - 8 = 24
                {"frame": 5, "bbox_xywh": [10, 0, 5, 5]},  # exact: 25
            ],
        }
    )
    parsed = parse(Response(text=text), doc)
    assert parsed.valid
    # LISA's per-image IoU averaged over the query's frames (not the query's pooled pixels (8 + 25) / (24 + 25)).
    assert score(parsed, doc["answer"], doc)["IoU"] == pytest.approx((8 / 24 + 25 / 25) / 2, rel=1e-5)
    norm = json.dumps(
        {"coordinates": "normalized", "boxes": [{"frame": 0, "bbox_xywh": [0.1, 0.2, 0.2, 0.4]}]}
    )
    parsed = parse(Response(text=norm), doc)
    assert parsed.answer[0] == [[2.0, 2.0, 4.0, 4.0]] and parsed.answer[1] == []


@pytest.mark.parametrize(
    "reply",
    [
        "the cup is at the left",
        json.dumps({"boxes": [{"frame": 0, "box": [1, 1, 3, 3]}]}),  # unlabelled
        json.dumps({"boxes": [{"frame": 3, "bbox_xyxy": [1, 1, 3, 3]}]}),  # a frame not asked for
        json.dumps({"boxes": [{"frame": 0, "bbox_xyxy": [5, 1, 3, 3]}]}),  # x2 < x1
        json.dumps({"coordinates": "normalized", "boxes": [{"frame": 0, "bbox_xywh": [2, 2, 4, 4]}]}),
    ],
)
def test_malformed_boxes_are_invalid_and_scored_as_empty(reply):
    doc = _doc([[[2, 2, 4, 4]], [[10, 0, 5, 5]]])
    parsed = parse(Response(text=reply), doc)
    assert not parsed.valid and parsed.note.startswith("rejected boxes")
    assert score(parsed, doc["answer"], doc)["IoU"] == 0.0


def _seg_doc() -> dict:
    """Two evaluation frames: the object in frame 0 (a 2x2 square), not visible in frame 4."""
    mask = np.zeros((2, 6, 8), bool)
    mask[0, 1:3, 2:4] = True
    return {
        "id": "s",
        "task_type": "segmentation",
        "width": 8,
        "height": 6,
        "answer": {"frames": [0, 4], "masks": encode_rle(mask)},
    }


@pytest.mark.parametrize(
    "response",
    [
        Response(text="[[1, 1, 3, 3]]"),  # a text-only model: no masks at all
        Response(text=""),  # the `random` baseline's reply
        Response(text="", structured={"masks": [None, None]}),  # null on every frame
        Response(text="", structured={"masks": encode_rle(np.zeros((2, 6, 8), bool))}),  # empty everywhere
        Response(text="", structured={"masks": "nope"}),
        Response(text="", structured={"boxes": [[[1, 1, 2, 2]], []]}),  # boxes where masks were asked for
    ],
)
def test_no_usable_masks_is_invalid_and_scores_zero_inside_the_mean(response):
    """Before: a reply with no masks was "not applicable" (scores None, left out of the J&F mean), and an
    empty prediction scored 1 on the frame where the object is not visible, so returning nothing beat trying."""
    doc = _seg_doc()
    parsed = parse(response, doc)
    assert not parsed.valid and parsed.note
    assert score(parsed, doc["answer"], doc) == {"J": 0.0, "F": 0.0, "J&F": 0.0}
    wrong = np.zeros((2, 6, 8), bool)
    wrong[:, 5, 7] = True  # a model that tries and misses on both frames: no better than nothing
    tried = parse(Response(text="", structured={"masks": encode_rle(wrong)}), doc)
    assert tried.valid and score(tried, doc["answer"], doc)["J&F"] == 0.0
    right = parse(Response(text="", structured={"masks": [doc["answer"]["masks"][0], None]}), doc)
    assert right.valid and score(right, doc["answer"], doc)["J&F"] == 1.0  # nothing in frame 4: right


def test_no_boxes_on_any_frame_is_invalid_and_scores_zero():
    doc = _doc([[[2, 2, 4, 4]], []])  # the object is not visible in frame 5
    for reply in (json.dumps({"coordinates": "pixel", "boxes": []}), ""):
        parsed = parse(Response(text=reply), doc)
        assert not parsed.valid and score(parsed, doc["answer"], doc)["IoU"] == 0.0
    parsed = parse(Response(text="", structured={"boxes": [[], []]}), doc)
    assert not parsed.valid and parsed.note == "no boxes in any frame"
    one = json.dumps({"boxes": [{"frame": 0, "bbox_xywh": [2, 2, 4, 4]}]})  # right, and nothing in frame 5
    assert score(parse(Response(text=one), doc), doc["answer"], doc)["IoU"] == pytest.approx(1.0, abs=1e-5)


def test_release_format_fixture_loads():
    rows = load_samples(FIXTURE, "test", {})
    assert [r["task_type"] for r in rows] == ["segmentation", "grounding", "vqa", "summary"]
    assert (
        rows[0]["answer"]["frames"] == [0, 3]
        and rows[0]["categories"] == ["semantic"]
        and rows[0]["level"] == 1
    )
    assert (
        rows[1]["answer"]["boxes"] == [[[2, 1, 3, 3]], [[2, 1, 3, 3]]]
        and rows[1]["category"] == "semantic+spatial"
    )
    assert rows[3]["categories"] == ["semantic", "temporal"] and rows[3]["level"] == 4
    assert rows[0]["video"] == "rvtbench/videos/demo.mp4" or rows[0]["video"] == "videos/demo.mp4"
    assert load_samples(FIXTURE, "test", {"task_type": "vqa"})[0]["answer"] == {"text": "The cup."}


def test_report_prints_cider_d_on_its_own_scale_and_names_the_tokenizer():
    from harness.report.formatting import value_text as format_cell
    from harness_tasks.rvtbench.report_sections import metric_table, rvtbench_sections

    cell = {"n_samples": 3, "CIDEr-D": 9.5, "ROUGE-L": 0.5}
    run = {
        "_label": "m",
        "task_results": {"rvtbench_vqa": {"tables": {"tokenizer": "T", "by_category_level": {"overall": cell}}}},
    }
    cider = metric_table([run], "rvtbench_vqa", "CIDEr-D")
    assert "%" not in cider.title and "not a percentage" in cider.note
    assert format_cell(cider.cell("m", "Overall")) == "9.500"
    rouge = metric_table([run], "rvtbench_vqa", "ROUGE-L")
    assert rouge.title.endswith("(%)") and format_cell(rouge.cell("m", "Overall")) == "50.0"
    assert "tokenized by T" in rvtbench_sections([run])[1].text


def _vqa_doc(canonical: str, kind: str, text: str) -> dict:
    vocab = {"attribute": ["blue", "red", "cube", "large"], "count": ["0", "1", "2", "3"]}
    return {
        "id": "v",
        "task_type": "vqa",
        "query": "What is the colour of the large cube?",
        "answer": {"text": text, "canonical": canonical, "kind": kind},
        "answer_vocabulary": vocab,
    }


@pytest.mark.parametrize(
    "reply, kind, canonical, correct",
    [
        ("The colour of the object is blue.", "attribute", "blue", True),
        ("The colour of the object is red.", "attribute", "red", True),
        ("blue or red", "attribute", "blue", False),  # two values: not an answer
        ("There are two other objects with the same colour.", "count", "2", True),
        ("3", "count", "2", False),
        ("No, it does not move.", "yes_no", "no", True),
        ("yes", "yes_no", "no", False),
        ("It is to the left of the red cube, not the right.", "relation", "left", True),
        ("It happens after the cube moves, not before.", "order", "after", True),
    ],
)
def test_vqa_rule_judge(reply, kind, canonical, correct, monkeypatch):
    monkeypatch.setenv("HARNESS_PTB_TOKENIZER", "python")
    doc = _vqa_doc(canonical, kind, "The colour of the object is blue.")
    parsed = parse(Response(text=reply), doc)
    assert parsed.extra["correct"] is correct
    assert score(parsed, doc["answer"], doc)["accuracy"] == float(correct)


def test_right_template_wrong_value_scores_rouge_but_not_accuracy(monkeypatch):
    monkeypatch.setenv("HARNESS_PTB_TOKENIZER", "python")
    doc = _vqa_doc("blue", "attribute", "The colour of the object is blue.")
    scores = score(parse(Response(text="The colour of the object is red."), doc), doc["answer"], doc)
    assert scores["ROUGE-L"] > 0.8 and scores["accuracy"] == 0.0


def test_vqa_judge_model_decides_when_given(monkeypatch):
    monkeypatch.setenv("HARNESS_PTB_TOKENIZER", "python")

    class Judge:
        def __init__(self):
            self.prompts, self.templates = [], {}

        def register_template(self, template_id, text):
            self.templates[template_id] = text

        def ask(self, prompt, template_id="default"):
            self.prompts.append(prompt)
            return "Yes."

    judge = Judge()
    doc = _vqa_doc("blue", "attribute", "The colour of the object is blue.")
    parsed = parse(Response(text="azure"), doc, judge)  # the rule judge would say wrong
    assert parsed.extra["correct"] is True and "Correct answer: blue" in judge.prompts[0]
    assert "rvtbench_vqa" in judge.templates
    judge.ask = lambda prompt, template_id="default": "I cannot tell."
    unclear = parse(Response(text="blue"), doc, judge)  # no verdict: wrong, never left out (was None)
    assert unclear.extra["judge_unclear"] and score(unclear, doc["answer"], doc)["accuracy"] == 0.0


@pytest.mark.skipif(not ptb_java.java_available(), reason="needs Java and pycocoevalcap (the `test` extra)")
def test_text_replies_are_tokenized_in_one_java_process_per_task(demo, tmp_path, monkeypatch):
    """N replies cost one tokenizer process for their per-sample ROUGE-L (not N), and the scores are those of
    scoring each reply alone; the corpus metrics keep COCOEvalCap's two batches."""

    monkeypatch.setenv("HARNESS_PTB_TOKENIZER", "java")
    monkeypatch.setattr(ptb_java, "_tokens", {})
    batches: list[list[str]] = []
    real = ptb_java.java_tokenize

    def counting(captions):
        batches.append(list(captions))
        return real(captions)

    monkeypatch.setattr(ptb_java, "java_tokenize", counting)
    run_in(tmp_path, ["rvtbench_vqa"], "random", str(demo), limit=6)
    (samples,) = (tmp_path / "o").rglob("samples_rvtbench_vqa_*.jsonl")
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    assert len(records) == 6 and all(r["raw"] for r in records)
    # the up-front probe of the metric names (one invalid answer), every reply and reference at once, then the
    # corpus metrics' candidates and references: four processes whatever the number of replies
    assert len(batches) == 4 and all(rec["raw"].strip() in batches[1] for rec in records)

    monkeypatch.setattr(ptb_java, "_tokens", {})  # as before the batch step: one reply at a time
    for rec in records:
        alone = score(parse(Response(text=rec["raw"]), rec["doc"]), rec["target"], rec["doc"])
        assert rec["scores"]["ROUGE-L"] == pytest.approx(alone["ROUGE-L"], abs=1e-12), rec["doc_id"]
