"""Malformed dataset rows of every kind, in every built-in loader and the core's: each is one counted drop
(with a reason) or one counted per-sample error, never an aborted run, and every row of the split is
accounted for (scored + errors + dropped + not selected = rows). docs/reliability.md gives the counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.errors import DataError
from harness.plugins.loading import load_plugins

LIMIT = 3
GOOD = {
    "id": "extra",
    "video": "videos/test_000.mp4",
    "question": "What colour?",
    "answer": "red",
    "family": "color",
}


class Raw(str):
    """A line written to the .jsonl as it is (not JSON-encoded)."""


def _with(**over):
    return lambda rows: [{**GOOD, **over}]


def _without(*fields):
    return lambda rows: [{k: v for k, v in GOOD.items() if k not in fields}]


# core loader (the test plugin's colors_qa, a .jsonl split): (case, extra rows or raw lines, expected)
CORE = [
    ("invalid_json_line", [Raw("{not json")], ("dropped", "invalid_json")),
    ("truncated_json_line", [Raw('{"id": "x", "video":')], ("dropped", "invalid_json")),
    ("binary_line", [Raw("\x00\x01\x02")], ("dropped", "invalid_json")),
    ("row_is_a_list", [["a", "list"]], ("dropped", "not_a_mapping")),
    ("row_is_a_string", ["just text"], ("dropped", "not_a_mapping")),
    ("row_is_a_number", [42], ("dropped", "not_a_mapping")),
    ("row_is_null", [None], ("dropped", "not_a_mapping")),
    ("row_is_a_bool", [True], ("dropped", "not_a_mapping")),
    ("duplicate_id", lambda rows: [dict(rows[0])], ("dropped", "duplicate_id")),
    ("empty_object", [{}], ("any", None)),
    ("video_is_a_dict", _with(video={"not": "a path"}), ("error", "any")),
    ("video_is_a_list", _with(video=["a.mp4"]), ("error", "any")),
    ("video_is_a_number", _with(video=5), ("error", "media")),
    ("video_absolute", _with(video="/absolute/video.mp4"), ("error", "media")),
    ("video_escapes_root", _with(video="../../etc/passwd"), ("error", "media")),
    ("video_missing_file", _with(video="videos/nope.mp4"), ("error", "media")),
    ("video_empty_string", _with(video=""), ("any", None)),
    ("no_answer", _without("answer"), ("scored", None)),
    ("answer_is_a_dict", _with(answer={"x": 1}), ("scored", None)),
    ("id_is_a_dict", _with(id={"x": 1}), ("scored", None)),
    ("id_is_null", _with(id=None), ("scored", None)),
    ("no_breakdown_field", _without("family"), ("scored", None)),
    (
        "lone_surrogate_in_question",
        [
            Raw(
                '{"id": "s", "video": "videos/test_000.mp4", "question": "\\ud800?", '
                '"answer": "red", "family": "color"}'
            )
        ],
        ("any", None),
    ),
]


def _run(task, root, cache):
    cfg = RunConfig(tasks=[task], model="oracle", data=root, limit=LIMIT, cache_dir=cache, progress=False)
    return run(cfg, load_plugins()).results["task_results"][task]


def _accounted(res, expected):
    assert res["n_scored"] + res["n_errors"] == res["n_samples"]
    assert res["n_samples"] + res["n_dropped"] + res["n_not_selected"] == res["n_rows"]
    outcome, what = expected
    if outcome == "dropped":
        assert res["dropped"] == {what: 1}, res["dropped"]
        assert len(res["dropped_examples"]) == 1 and res["dropped_examples"][0]["detail"]
    elif outcome == "error":
        assert res["n_errors"] == 1 and res["n_dropped"] == 0, (res["errors"], res["dropped"])
        assert what == "any" or res["errors"] == {what: 1}, res["errors"]
    elif outcome == "scored":
        assert res["n_errors"] == 0 and res["n_dropped"] == 0 and res["n_scored"] == LIMIT
    else:
        assert res["n_errors"] + res["n_dropped"] <= 1


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("case, extra, expected", CORE, ids=[c[0] for c in CORE])
def test_core_loader_counts_each_malformed_row(
    case, extra, expected, tmp_path, colors_root, with_plugin, cache
):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    split = root / "colors" / "test.jsonl"
    rows = [json.loads(x) for x in split.read_text().splitlines()]
    added = extra(rows) if callable(extra) else extra
    lines = [x if isinstance(x, Raw) else json.dumps(x) for x in added]
    split.write_text("\n".join(lines + [json.dumps(r) for r in rows]) + "\n")  # damaged rows first
    res = _run("colors_qa", root, cache)
    assert res["n_rows"] == 24 + len(added)
    _accounted(res, expected)


def test_a_json_split_that_is_not_json_fails_up_front_naming_file_and_line(
    tmp_path, colors_root, with_plugin
):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    (root / "colors" / "test.jsonl").unlink()
    (root / "colors" / "test.json").write_text('[\n{"id": 1},\n{oops}\n]\n')
    with pytest.raises(DataError, match=r"test.json is not valid JSON \(line 3"):
        _run("colors_qa", root, tmp_path / "c")


# ---- CycliST: questions/<tier>/<split>/questions_<template>.json rows and scenes/<tier>/<split>/*.json ---
CYCLIST_TEST = ("unicycle", "test")
FIRST_FILE = "cycle_representative_clockwise"


def _q(over=None, drop=(), family="numeric_counting"):
    """A damaged copy of the first question of the family's file (its own index and wording, so it is no
    duplicate of the row it was copied from); `over` values may be functions of that first question."""

    def damage(questions):
        first = questions[0]
        q = {k: v for k, v in first.items() if k not in drop}
        if "question" in q:
            q["question"] = f"{first['question']} (a variant)"
        q["question_index"] = 10**6
        q.update({k: v(first) if callable(v) else v for k, v in (over or {}).items()})
        return q

    damage.family = family
    return damage


CYCLIST_VQA = [
    ("question_not_an_object", lambda qs: "a string", ("dropped", "not_a_mapping")),
    ("question_is_a_list", lambda qs: [1, 2], ("dropped", "not_a_mapping")),
    ("missing_question", _q(drop=("question",)), ("dropped", "missing_field")),
    ("missing_answer", _q(drop=("answer",)), ("dropped", "missing_field")),
    ("missing_video_filename", _q(drop=("video_filename",)), ("dropped", "missing_field")),
    (
        "unknown_family",
        _q({"family": "nope", "template_filename": "nope.json"}),
        ("dropped", "unknown_family"),
    ),
    ("bad_split", _q({"split": "tset"}), ("dropped", "bad_split")),
    ("bad_tier", _q({"tier": "L9"}), ("dropped", "bad_tier")),
    ("answer_is_a_dict", _q({"answer": {"x": 1}}), ("dropped", "bad_value")),
    ("answer_is_null", _q({"answer": None}), ("dropped", "bad_value")),
    ("question_is_a_number", _q({"question": 7}), ("dropped", "bad_value")),
    # media errors show among the first --limit rows: the first file read (sorted by name)
    ("video_file_missing", _q({"video_filename": "nope.mp4"}, family=FIRST_FILE), ("error", "media")),
    ("video_absolute", _q({"video_filename": "/etc/x.mp4"}, family=FIRST_FILE), ("error", "media")),
    # issue 27: targets that do not fit their family, and non-finite numbers anywhere in a row
    ("count_answer_nan", _q({"answer": float("nan")}), ("dropped", "non_finite")),
    ("count_answer_infinity", _q({"answer": float("inf")}), ("dropped", "non_finite")),
    ("count_answer_minus_infinity", _q({"answer": float("-inf")}), ("dropped", "non_finite")),
    ("count_answer_true", _q({"answer": True}), ("dropped", "bad_target")),
    ("count_answer_negative", _q({"answer": -3}), ("dropped", "bad_target")),
    ("count_answer_many", _q({"answer": "many"}), ("dropped", "bad_target")),
    ("count_answer_fraction", _q({"answer": 2.5}), ("dropped", "bad_target")),
    ("count_answer_colour", _q({"answer": "red"}), ("dropped", "bad_target")),
    (
        "nan_in_program",
        _q({"program": [{"type": "scene", "inputs": [], "value_inputs": [float("nan")]}]}),
        ("dropped", "non_finite"),
    ),  # fmt: skip
    ("nan_question_index", _q({"question_index": float("nan")}), ("dropped", "non_finite")),
    (
        "yes_no_answer_colourish",
        _q({"answer": "purple-ish"}, family="descriptive_existential_attributes"),
        ("dropped", "bad_target"),
    ),  # fmt: skip
    (
        "yes_no_answer_number",
        _q({"answer": 5}, family="descriptive_universal_compare"),
        ("dropped", "bad_target"),
    ),
    (
        "yes_no_answer_nan",
        _q({"answer": float("nan")}, family="descriptive_universal_relate"),
        ("dropped", "non_finite"),
    ),  # fmt: skip
    (
        "attribute_answer_unknown",
        _q({"answer": "octarine"}, family="cycle_representative_transition"),
        ("dropped", "bad_target"),
    ),  # fmt: skip
    (
        "attribute_answer_yes",
        _q({"answer": True}, family="cycle_representative_orbit"),
        ("dropped", "bad_target"),
    ),
    (
        "direction_answer_colour",
        _q({"answer": "red"}, family="cycle_representative_clockwise"),
        ("dropped", "bad_target"),
    ),  # fmt: skip
    (
        "unknown_template_filename",
        _q({"family": None, "template_filename": "zero_hop.json"}),
        ("dropped", "unknown_family"),
    ),  # fmt: skip
    (
        "template_filename_unknown_with_family",
        _q({"template_filename": "my_templates.json"}),
        ("dropped", "unknown_template"),
    ),  # fmt: skip
    ("question_family_index_999", _q({"question_family_index": 999}), ("dropped", "unknown_template")),
    ("question_family_index_negative", _q({"question_family_index": -1}), ("dropped", "unknown_template")),
    ("question_family_index_text", _q({"question_family_index": "first"}), ("dropped", "unknown_template")),
    (
        "repeated_question_index",
        _q({"question_index": lambda first: first["question_index"]}),
        ("dropped", "duplicate"),
    ),  # fmt: skip
    ("same_question_same_video", _q({"question": lambda first: first["question"]}), ("dropped", "duplicate")),
    ("kind_first_row_of_another_split", _q({"split": "train"}), ("dropped", "split_mismatch")),
    ("kind_first_row_of_another_tier", _q({"tier": "L3"}), ("dropped", "tier_mismatch")),
]


@pytest.fixture(scope="module")
def cyclist_demo(tmp_path_factory):
    from harness_builders.cyclist.commands import CyclistBuilder

    (ds,) = CyclistBuilder().demo(tmp_path_factory.mktemp("cyc"), 0)
    return ds.data_dir


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("masks"))
    return dst


@pytest.mark.parametrize("case, damage, expected", CYCLIST_VQA, ids=[c[0] for c in CYCLIST_VQA])
def test_cyclist_question_rows_are_counted(case, damage, expected, tmp_path, cyclist_demo, cache):
    root = _copy(cyclist_demo, tmp_path / "cyc")
    folder = root.joinpath("questions", *CYCLIST_TEST)
    n = sum(len(json.loads(p.read_text())["questions"]) for p in folder.glob("*.json"))
    path = folder / f"questions_{getattr(damage, 'family', 'numeric_counting')}.json"
    data = json.loads(path.read_text())
    data["questions"].insert(0, damage(data["questions"]))
    path.write_text(json.dumps(data))
    res = _run("cyclist_l1", root, cache)
    assert res["n_rows"] == n + 1
    _accounted(res, expected)


CYCLIST_SCENES = [
    (
        "scene_missing_video_file",
        lambda s: {k: v for k, v in s.items() if k != "video_file"},
        "missing_field",
    ),
    (
        "scene_unknown_colour",
        lambda s: {**s, "objects": [{**s["objects"][0], "color": "octarine"}]},
        "bad_scene",
    ),
    ("scene_no_objects", lambda s: {**s, "objects": []}, "bad_scene"),
    ("scene_objects_not_a_list", lambda s: {**s, "objects": 5}, "bad_scene"),
    ("scene_bad_split", lambda s: {**s, "split": "tset"}, "bad_split"),
    ("scene_bad_tier", lambda s: {**s, "tier": "L0"}, "bad_tier"),
    ("scene_not_an_object", lambda s: [s], "not_an_object"),
    (
        "scene_nan_location",
        lambda s: {**s, "objects": [{**s["objects"][0], "location": {"x": float("nan")}}]},
        "non_finite",
    ),  # fmt: skip
    ("scene_infinite_fps", lambda s: {**s, "fps": float("inf")}, "non_finite"),
    ("scene_of_another_split", lambda s: {**s, "split": "val"}, "split_mismatch"),
    ("scene_of_another_tier", lambda s: {**s, "tier": "L2"}, "tier_mismatch"),
]


@pytest.mark.parametrize("case, damage, reason", CYCLIST_SCENES, ids=[c[0] for c in CYCLIST_SCENES])
def test_cyclist_scene_rows_are_counted(case, damage, reason, tmp_path, cyclist_demo, cache):
    root = _copy(cyclist_demo, tmp_path / "cyc")
    scene_file = sorted(root.joinpath("scenes", *CYCLIST_TEST).glob("test_*.json"))[0]
    scene_file.write_text(json.dumps(damage(json.loads(scene_file.read_text()))))
    res = _run("cyclist_caption_l1", root, cache)
    _accounted(res, ("dropped", reason))


# ---- RVTBench: the builder's test.jsonl -----------------------------------------------------------------
RVT = [
    (
        "no_task_type",
        lambda r: {k: v for k, v in r.items() if k != "task_type"},
        ("dropped", "missing_field"),
    ),
    ("no_answer", lambda r: {k: v for k, v in r.items() if k != "answer"}, ("dropped", "missing_field")),
    ("bad_task_type", lambda r: {**r, "task_type": "dance"}, ("dropped", "bad_value")),
    ("row_not_an_object", lambda r: [r], ("dropped", "not_a_mapping")),
    ("invalid_json_line", lambda r: "{oops", ("dropped", "invalid_json")),
    (
        "answer_without_frames",
        lambda r: {**r, "answer": {"masks": r["answer"]["masks"]}},
        ("dropped", "bad_target"),
    ),
    ("width_not_a_number", lambda r: {**r, "width": "wide", "height": "tall"}, ("dropped", "bad_value")),
]


@pytest.fixture(scope="module")
def rvt_demo(tmp_path_factory):
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    (ds,) = RvtbenchBuilder().demo(tmp_path_factory.mktemp("rvt"), 0)
    return ds.data_dir


@pytest.mark.parametrize("case, damage, expected", RVT, ids=[c[0] for c in RVT])
def test_rvtbench_rows_are_counted(case, damage, expected, tmp_path, rvt_demo, cache):
    root = _copy(rvt_demo, tmp_path / "rvt")
    path = root / "test.jsonl"
    lines = path.read_text().splitlines()
    rows = [json.loads(x) for x in lines if x.strip()]
    first = next(r for r in rows if r["task_type"] == "segmentation")
    bad = damage({**first, "id": "damaged"})
    path.write_text("\n".join([bad if isinstance(bad, str) else json.dumps(bad)] + lines) + "\n")
    res = _run("rvtbench_seg", root, cache)
    _accounted(res, expected)


# ---- TempCloze: mixed_ids.json rows ---------------------------------------------------------------------
TEMPCLOZE = [
    ("mixed_row_not_an_object", lambda rows: "stem", "malformed_row"),
    (
        "mixed_row_without_stem",
        lambda rows: {k: v for k, v in rows[0].items() if k != "stem"},
        "malformed_row",
    ),
    ("mixed_row_without_a_distractor", lambda rows: {"stem": rows[0]["stem"]}, "missing_field"),
]


@pytest.fixture(scope="module")
def tempcloze_demo(tmp_path_factory):
    from harness_builders.tempcloze.commands import TempClozeBuilder

    return TempClozeBuilder().demo(tmp_path_factory.mktemp("tc"), 0)[0].data_dir


@pytest.mark.parametrize("case, damage, reason", TEMPCLOZE, ids=[c[0] for c in TEMPCLOZE])
def test_tempcloze_mixed_rows_are_counted(case, damage, reason, tmp_path, tempcloze_demo, cache):
    root = _copy(tempcloze_demo, tmp_path / "tc")
    path = root / "mixed_ids.json"
    rows = json.loads(path.read_text())
    path.write_text(json.dumps([damage(rows)] + rows))
    res = _run("tempcloze_mixed", root, cache)
    _accounted(res, ("dropped", reason))


def test_the_suite_tries_every_kind_listed_in_the_docs():
    kinds = len(CORE) + len(CYCLIST_VQA) + len(CYCLIST_SCENES) + len(RVT) + len(TEMPCLOZE)
    assert kinds == 82  # docs/reliability.md lists this count
