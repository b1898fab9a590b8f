"""RVTBench targets validated at load time (issue 27 point 1): every malformed build row and release record is
dropped with its reason (counted and shown), never scored, never a crash, and a run over all of them at once
accounts for every row. docs/reliability.md gives the counts."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from harness.config.run import RunConfig
from harness.engine.runner import run
from harness_metrics import encode_rle
from harness_tasks.rvtbench.loader import FIELD_ALIASES, OPTIONAL_FIELDS, load_samples

TASKS = {"segmentation": "rvtbench_seg", "grounding": "rvtbench_grounding", "vqa": "rvtbench_vqa"}
NAN, INF = math.nan, math.inf


def _answer(**over):
    return lambda r: {**r, "answer": {**r["answer"], **over}}


def _frames_past_end(r):
    return {**r, "answer": {**r["answer"], "frames": [*r["answer"]["frames"][:-1], r["num_frames"]]}}


def _mask(h, w):
    import numpy as np

    return encode_rle(np.ones((h, w), bool))[0]


def _null_first_mask(r):
    return _answer(masks=[None, *r["answer"]["masks"][1:]])(r)


def _wrong_size_masks(r):
    return _answer(masks=[_mask(5, 7)] * len(r["answer"]["frames"]))(r)


def _empty_masks(r):
    import numpy as np

    empty = encode_rle(np.zeros((len(r["answer"]["frames"]), r["height"], r["width"]), bool))
    return {**r, "answer": {**r["answer"], "masks": empty}}


# (case, task type of the row damaged, damage, reason): build rows (test.jsonl of a build)
BUILD = [
    ("video_null", "segmentation", lambda r: {**r, "video": None}, "bad_value"),
    ("video_number", "segmentation", lambda r: {**r, "video": 7}, "bad_value"),
    ("video_empty", "grounding", lambda r: {**r, "video": ""}, "bad_value"),
    ("fps_zero", "segmentation", lambda r: {**r, "fps": 0}, "bad_value"),
    ("fps_nan", "segmentation", lambda r: {**r, "fps": NAN}, "non_finite"),
    ("fps_infinite", "vqa", lambda r: {**r, "fps": INF}, "non_finite"),
    ("fps_text", "grounding", lambda r: {**r, "fps": "fast"}, "bad_value"),
    ("num_frames_negative", "segmentation", lambda r: {**r, "num_frames": -5}, "bad_value"),
    ("num_frames_fraction", "grounding", lambda r: {**r, "num_frames": 2.5}, "bad_value"),
    ("width_zero", "segmentation", lambda r: {**r, "width": 0}, "bad_value"),
    ("height_nan", "grounding", lambda r: {**r, "height": NAN}, "non_finite"),
    ("grounding_without_size", "grounding", lambda r: {**r, "width": None}, "bad_value"),
    ("id_null", "vqa", lambda r: {**r, "id": None}, "bad_value"),
    ("task_type_null", "vqa", lambda r: {**r, "task_type": None}, "bad_value"),
    ("level_99", "segmentation", lambda r: {**r, "level": 99}, "bad_level"),
    ("level_hard", "vqa", lambda r: {**r, "level": "hard"}, "bad_level"),
    ("level_bool", "grounding", lambda r: {**r, "level": True}, "bad_level"),
    ("level_missing", "segmentation", lambda r: {k: v for k, v in r.items() if k != "level"}, "bad_level"),
    ("category_unknown", "segmentation", lambda r: {**r, "categories": ["emotional"]}, "unknown_category"),
    ("categories_empty", "vqa", lambda r: {**r, "categories": []}, "unknown_category"),
    ("nan_deep_in_the_tree", "vqa", lambda r: {**r, "tree": {"x": [1.0, NAN]}}, "non_finite"),
    (
        "seg_frame_negative",
        "segmentation",
        lambda r: _answer(frames=[-1, *r["answer"]["frames"][1:]])(r),
        "bad_target",
    ),
    ("seg_frame_past_end", "segmentation", _frames_past_end, "bad_target"),
    (
        "seg_frames_repeat",
        "segmentation",
        lambda r: _answer(frames=[0, *r["answer"]["frames"][:-1]])(r),
        "bad_target",
    ),
    ("seg_mask_null", "segmentation", _null_first_mask, "bad_target"),
    ("seg_mask_wrong_size", "segmentation", _wrong_size_masks, "bad_target"),
    (
        "seg_mask_undecodable",
        "segmentation",
        _answer(masks=[{"size": [90, 160], "counts": 5}] * 8),
        "bad_target",
    ),
    (
        "seg_masks_fewer_than_frames",
        "segmentation",
        lambda r: _answer(masks=r["answer"]["masks"][:2])(r),
        "bad_target",
    ),
    ("seg_no_object_on_any_frame", "segmentation", _empty_masks, "bad_target"),
    ("seg_answer_a_string", "segmentation", lambda r: {**r, "answer": "a cube"}, "bad_target"),
    ("box_nan", "grounding", lambda r: _answer(boxes=[[[1, 2, NAN, 4]]] * 8)(r), "non_finite"),
    ("box_negative_width", "grounding", lambda r: _answer(boxes=[[[1, 2, -3, 4]]] * 8)(r), "bad_target"),
    ("box_three_numbers", "grounding", lambda r: _answer(boxes=[[[1, 2, 3]]] * 8)(r), "bad_target"),
    ("box_frame_past_end", "grounding", _frames_past_end, "bad_target"),
    (
        "no_box_on_any_frame",
        "grounding",
        lambda r: _answer(boxes=[[] for _ in r["answer"]["frames"]])(r),
        "bad_target",
    ),
    ("vqa_answer_null", "vqa", lambda r: {**r, "answer": None}, "bad_target"),
    ("vqa_answer_a_string", "vqa", lambda r: {**r, "answer": "blue"}, "bad_target"),
    (
        "vqa_without_canonical",
        "vqa",
        lambda r: {**r, "answer": {"text": "It is blue.", "kind": "attribute"}},
        "bad_target",
    ),
    ("vqa_canonical_null", "vqa", _answer(canonical=None), "bad_target"),
    ("vqa_unknown_kind", "vqa", _answer(kind="mood"), "bad_target"),
    ("vqa_text_a_number", "vqa", _answer(text=5), "bad_target"),
]


def _release_record(row: dict, **over) -> dict:
    keep = set(FIELD_ALIASES) | set(OPTIONAL_FIELDS)  # each field by its first name
    return {**{k: v for k, v in row.items() if k in keep}, **over}


# (case, task type, damage of the release record, reason): release records (a JSON list in rvtbench/)
RELEASE = [
    ("video_null", "segmentation", lambda r: {**r, "video": None}, "missing_field"),
    ("fps_nan", "segmentation", lambda r: {**r, "fps": NAN}, "non_finite"),
    ("fps_zero", "grounding", lambda r: {**r, "fps": 0}, "bad_value"),
    ("level_99", "vqa", lambda r: {**r, "level": 99}, "bad_level"),
    ("level_hard", "segmentation", lambda r: {**r, "level": "hard"}, "bad_level"),
    (
        "category_unknown",
        "grounding",
        lambda r: {**r, "categories": "semantic+emotional"},
        "unknown_category",
    ),
    ("mask_null", "segmentation", _null_first_mask, "bad_target"),
    ("mask_not_the_video_size", "segmentation", _wrong_size_masks, "bad_target"),
    ("frame_past_end", "segmentation", _frames_past_end, "bad_target"),
    ("box_infinite", "grounding", lambda r: _answer(boxes=[[[1, 2, INF, 4]]] * 8)(r), "non_finite"),
    ("vqa_answer_a_dict_without_text", "vqa", lambda r: {**r, "answer": {"value": 3}}, "bad_target"),
    ("num_frames_negative", "segmentation", lambda r: {**r, "num_frames": -5}, "bad_value"),
]


@pytest.fixture(scope="module")
def demo(rvtbench_demo) -> Path:
    """The builder's demo set (shared by the session)."""
    return rvtbench_demo


def _rows(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "test.jsonl").read_text().splitlines() if line.strip()]


def _damaged_build(demo: Path, root: Path) -> list[dict]:
    shutil.copytree(demo, root)
    rows = _rows(root)
    firsts = {t: next(r for r in rows if r["task_type"] == t) for t in TASKS}
    bad = [damage({**firsts[t], "id": f"bad_{case}"}) for case, t, damage, _ in BUILD]
    text = "\n".join(json.dumps(r, allow_nan=True) for r in bad + rows) + "\n"
    (root / "test.jsonl").write_text(text)
    return rows


def test_every_malformed_build_row_is_dropped_with_its_reason(demo, tmp_path):
    _damaged_build(demo, tmp_path / "rvt")
    loaded = load_samples(tmp_path / "rvt", "test", {})
    dropped = [r for r in loaded if not isinstance(r, dict)]
    assert not any(isinstance(r, dict) and str(r["id"]).startswith("bad_") for r in loaded)
    assert len(dropped) == len(BUILD)
    for (case, _, _, reason), drop in zip(BUILD, dropped, strict=True):
        assert drop.reason == reason, (case, drop)
        assert "test.jsonl row" in drop.detail and (case == "id_null" or f"bad_{case}" in drop.detail), drop


def test_a_run_over_every_malformed_row_counts_each_and_scores_none(demo, tmp_path):
    rows = _damaged_build(demo, tmp_path / "rvt")
    cfg = RunConfig(
        tasks=list(TASKS.values()), model="oracle", data=str(tmp_path / "rvt"), cache_dir=str(tmp_path / "c")
    )
    # Before: the oracle crashed on a VQA answer that is null or a string (no results at all).
    results = run(cfg).results["task_results"]
    headline = {"rvtbench_seg": "J&F", "rvtbench_grounding": "IoU", "rvtbench_vqa": "accuracy"}
    for task_type, task in TASKS.items():
        res = results[task]
        good = sum(1 for r in rows if r["task_type"] == task_type)
        assert res["n_samples"] == res["n_scored"] == good and res["n_errors"] == 0 and res["n_invalid"] == 0
        assert res["n_samples"] + res["n_dropped"] + res["n_not_selected"] == res["n_rows"]
        # A drop counts in its row's task; a row whose task type cannot be read counts in every task.
        mine = sum(1 for case, t, *_ in BUILD if t == task_type and case != "task_type_null") + 1
        assert res["n_dropped"] == mine == sum(res["dropped"].values())
        assert res["metrics"][headline[task]]["value"] == pytest.approx(
            1.0, abs=1e-6
        )  # no damaged row scored


def test_every_malformed_release_record_is_dropped_with_its_reason(demo, tmp_path):
    folder = tmp_path / "data" / "rvtbench"
    shutil.copytree(demo / "videos", folder / "videos")
    rows = _rows(demo)
    firsts = {t: _release_record(next(r for r in rows if r["task_type"] == t)) for t in TASKS}
    bad = [damage({**firsts[t], "id": f"bad_{case}"}) for case, t, damage, _ in RELEASE]
    good = [_release_record(r) for r in rows]
    (folder / "samples.json").write_text(json.dumps(bad + good, allow_nan=True))
    loaded = load_samples(tmp_path / "data", "test", {})
    dropped = [r for r in loaded if not isinstance(r, dict)]
    assert len(loaded) - len(dropped) == len(good) and len(dropped) == len(RELEASE)
    for k, ((case, _, _, reason), drop) in enumerate(zip(RELEASE, dropped, strict=True)):
        assert drop.reason == reason and f"samples.json[{k}]" in drop.detail, (case, drop)


def test_a_byte_order_mark_keeps_the_first_row(demo, tmp_path):
    """Before: the first row of a build's test.jsonl (or a release file) starting with a BOM was invalid_json."""
    root = tmp_path / "bom"
    shutil.copytree(demo, root)
    text = (root / "test.jsonl").read_text(encoding="utf-8")
    (root / "test.jsonl").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    loaded = load_samples(root, "test", {})
    assert all(isinstance(r, dict) for r in loaded) and len(loaded) == len(_rows(demo))
    folder = tmp_path / "rel" / "rvtbench"
    shutil.copytree(demo / "videos", folder / "videos")
    records = [_release_record(r) for r in _rows(demo)]
    (folder / "a.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(records).encode())
    (folder / "b.jsonl").write_bytes(
        b"\xef\xbb\xbf" + json.dumps({**records[0], "id": "other"}).encode() + b"\n"
    )
    loaded = load_samples(tmp_path / "rel", "test", {})
    assert all(isinstance(r, dict) for r in loaded) and len(loaded) == len(records) + 1
