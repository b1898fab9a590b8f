"""CycliST data as the hub release publishes it (kind first: questions/<tier>/<split>/questions_<template>.json,
scenes/<tier>/<split>/, videos/<tier>/<split>/), every tier and split, read unchanged; what `build cyclist
--out` writes is that layout too; duplicates, targets that do not fit their family, non-finite numbers and
byte-order marks are counted rows, never a crash or a doubled score (issues 26 and 27)."""

from __future__ import annotations

import json
import logging
import math
import subprocess
import sys
from pathlib import Path

import pytest

from harness.api import DataError
from harness.config.run import RunConfig
from harness.engine.runner import build_task, run
from harness.plugins.loading import load_plugins
from harness_builders.cyclist.questions.sample_scenes import make_scene
from harness_tasks.cyclist.families import TEMPLATE_FILES

TIERS = {"L1": "unicycle", "L2": "unicycle_cluttered", "L3": "bicycle", "L4": "tricycle", "L5": "nightrider"}
SPLITS = ("train", "val", "test")
SCENES = 2
# official template file -> (question_family_index, question, answer as the release types it, target)
OFFICIAL = {
    "existential_descriptive_attributes.json": (1, "Is the large metal cube ever red?", True, "yes"),
    "universal_descriptive_compare.json": (
        0,
        "Do the cube and the cone always have the same size?",
        False,
        "no",
    ),
    "cycle_representative_clockwise.json": (
        0,
        "In which clock direction is the cylinder orbiting?",
        "clockwise",
        "clockwise",
    ),  # fmt: skip
    "cycle_representative_orbit.json": (
        1,
        "What is the color of the object it is orbiting around?",
        "red",
        "red",
    ),
    "counting_occurance.json": (3, "How many objects are orbiting in the scene?", 1, 1),
    "counting_frequency.json": (1, "What is the orbit period in frames of the cylinder?", 80, 80),
    "counting_occurence.json": (0, "How many orbits does the cylinder do in the video?", "2", 2),
}
FAMILY = {
    "existential_descriptive_attributes.json": "descriptive_existential_attributes",
    "universal_descriptive_compare.json": "descriptive_universal_compare",
    "cycle_representative_clockwise.json": "cycle_representative_clockwise",
    "cycle_representative_orbit.json": "cycle_representative_orbit",
    "counting_occurance.json": "numeric_counting",
    "counting_frequency.json": "numeric_periodicity",
    "counting_occurence.json": "numeric_occurrence",
}


def _scene(split_name: str, index: int) -> dict:
    """A scene as the official generator writes it (no tier field, split `<tier>_<split>`, capitalised
    meshes and materials, per-frame orbit states, relationships)."""
    scene = make_scene(
        [
            {"mesh": "Cube", "color": "red", "size": "large", "material": "Metal", "location": (-3, -3)},
            {"mesh": "Cone", "color": "blue", "size": "large", "location": (3, 3)},
            {
                "mesh": "Cylinder",
                "color": "green",
                "size": "small",
                "location": (-3, 0),
                "cycles": {"orbit": {"period": 80, "center": 0, "direction": "clockwise", "radius": 2.0}},
            },
        ],  # fmt: skip
        duration=1.0,
        split=split_name,
        index=index,
    )
    for key in ("tier", "number_of_frames"):
        scene.pop(key, None)
    return scene


def write_release(root: Path, tiers=TIERS, splits=SPLITS, videos: bool = False) -> Path:
    """The release's files for the given tiers and splits: SCENES scenes per split, one question per
    scene per official template file (question_index numbered per file, as one generator run per file
    does), `info.split` the scenes folder's name; tiny real videos when `videos`."""
    for folder in (TIERS[t] for t in tiers):
        for split in splits:
            for kind in ("scenes", "questions", "videos"):
                (root / kind / folder / split).mkdir(parents=True)
            per_file: dict[str, list] = {name: [] for name in OFFICIAL}
            for i in range(SCENES):
                scene = _scene(f"{folder}_{split}", i)
                stem = f"{folder}_{split}_{i}"
                scene["video_file"] = f"{stem}.mp4"
                (root / "scenes" / folder / split / f"{stem}_config.json").write_text(json.dumps(scene))
                if videos:
                    _write_video(root / "videos" / folder / split / f"{stem}.mp4")
                for name, (family_index, text, answer, _) in OFFICIAL.items():
                    per_file[name].append(
                        {
                            "split": split,
                            "video_filename": f"{stem}.mp4",
                            "video_index": i,
                            "video": stem,
                            "question": text,
                            "program": [],
                            "answer": answer,
                            "template_filename": name,
                            "question_family_index": family_index,
                            "question_index": len(per_file[name]),
                        }  # fmt: skip
                    )
            for name, questions in per_file.items():
                info = {
                    "split": split,
                    "version": "1.0",
                    "license": "Creative Commons Attribution (CC-BY 4.0)",
                }
                path = root / "questions" / folder / split / f"questions_{name[:-5]}.json"
                path.write_text(json.dumps({"info": info, "questions": questions, "template_counts": {}}))
    return root


def _write_video(path: Path) -> None:
    import numpy as np

    from harness.frames import write_video

    write_video(path, (np.full((16, 16, 3), 40 * k, np.uint8) for k in range(4)), fps=4)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """DATA/cyclist holds the release: every tier and split (no videos)."""
    data = tmp_path_factory.mktemp("data")
    write_release(data / "cyclist")
    return data


@pytest.mark.parametrize("tier", list(TIERS))
def test_every_tier_and_split_of_the_release_loads_unchanged(release, tier):
    state = load_plugins([])
    folder = TIERS[tier]
    for split in SPLITS:
        for root, prefix in ((release, "cyclist/"), (release / "cyclist", "")):  # --data DATA or DATA/cyclist
            task = build_task(state, f"cyclist_{tier.lower()}")
            loaded = task.load_split(root, split=split)
            docs = loaded.docs
            assert loaded.dropped == [] and len(docs) == SCENES * len(OFFICIAL)
            for d in docs:
                assert d["video"] == f"{prefix}videos/{folder}/{split}/{d['video_filename']}"
                name = d["template_filename"]
                assert d["family"] == FAMILY[name] and d["target"] == OFFICIAL[name][3] and d["tier"] == tier
            caption = build_task(state, f"cyclist_caption_{tier.lower()}")
            loaded = caption.load_split(root, split=split)
            scenes = loaded.docs
            assert loaded.dropped == [] and len(scenes) == SCENES
            assert scenes[0]["video"] == f"{prefix}videos/{folder}/{split}/{folder}_{split}_0.mp4"
            assert scenes[0]["objects"][0]["mesh"] == "cube" and scenes[0]["objects"][2]["orbit"] is True


def test_an_oracle_run_on_the_release_scores_every_row(tmp_path):
    data = tmp_path / "data"
    write_release(data / "cyclist", tiers=("L1",), splits=("test",), videos=True)
    cfg = RunConfig(tasks=["cyclist_l1", "cyclist_caption_l1"], model="oracle", data=data,
                    cache_dir=tmp_path / "cache", output_path=tmp_path / "out", progress=False)  # fmt: skip
    results = run(cfg).results["task_results"]
    vqa, cap = results["cyclist_l1"], results["cyclist_caption_l1"]
    assert vqa["n_samples"] == SCENES * len(OFFICIAL) and vqa["n_errors"] == 0 and vqa["n_dropped"] == 0
    assert vqa["metrics"]["accuracy"]["value"] == 1.0
    assert cap["n_samples"] == SCENES and cap["metrics"]["obj_f1"]["value"] == 1.0


def _harness(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], check=True, capture_output=True, text=True
    )


def test_build_out_is_the_release_layout_read_from_it_or_its_parent(tmp_path):
    """Issue 26: `build cyclist --out data/cyclist` then `--data data` (or `--data data/cyclist`) reads the
    build with no renaming; writing the questions again (as the old docs said) adds no second copy."""
    out = tmp_path / "data" / "cyclist"
    _harness("build", "cyclist", "--tier", "L3", "--split", "val", "--num-scenes", "4", "--frames", "32",
             "--renderer", "none", "--out", str(out), "--no_progress")  # fmt: skip
    files = sorted((out / "questions" / "bicycle" / "val").glob("questions_*.json"))
    written = sum(len(json.loads(p.read_text())["questions"]) for p in files)
    assert written > 0 and (out / "scenes" / "bicycle" / "val").is_dir()
    assert (
        not (out / "build_config.json").exists()
        and (out / "build" / "bicycle" / "build_config.json").exists()
    )
    task = build_task(load_plugins([]), "cyclist_l3")
    for root in (tmp_path / "data", out):
        loaded = task.load_split(root, split="val")
        assert len(loaded.docs) == written and loaded.dropped == []
    _harness("build", "cyclist-questions", "--scenes", str(out / "scenes" / "bicycle" / "val"),
             "--out", str(out / "questions" / "bicycle" / "val"))  # fmt: skip
    assert len(task.load_docs(tmp_path / "data", split="val")) == written
    _harness("build", "cyclist-questions", "--scenes", str(out / "scenes" / "bicycle" / "val"),
             "--out", str(out / "questions" / "bicycle" / "val" / "CycliST_val_questions.json"))  # fmt: skip
    loaded = task.load_split(tmp_path / "data", split="val")
    assert len(loaded.docs) == written and {d["reason"] for d in loaded.dropped} == {"duplicate"}
    assert len(loaded.dropped) == written
    caption = build_task(load_plugins([]), "cyclist_caption_l3")
    assert len(caption.load_docs(tmp_path / "data", split="val")) == 4


def test_tier_first_layouts_keep_working_under_root_or_its_cyclist_folder(tmp_path):
    for data in (tmp_path / "a", tmp_path / "b" / "cyclist"):
        release = write_release(tmp_path / "tmp" / data.name, tiers=("L2",), splits=("test",))
        tier = data / "unicycle_cluttered"
        for kind in ("questions", "scenes", "videos"):
            (release / kind / "unicycle_cluttered" / "test").rename(_mkparent(tier / kind))
    task = build_task(load_plugins([]), "cyclist_l2")
    for root, prefix in ((tmp_path / "a", ""), (tmp_path / "b", "cyclist/")):
        loaded = task.load_split(root)
        docs = loaded.docs
        assert len(docs) == SCENES * len(OFFICIAL) and loaded.dropped == []
        assert docs[0]["video"] == f"{prefix}unicycle_cluttered/videos/{docs[0]['video_filename']}"


def _mkparent(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_two_layouts_in_one_root_or_none_name_root_the_paths_and_the_fix(tmp_path):
    write_release(tmp_path, tiers=("L1",), splits=("test",))
    (tmp_path / "unicycle" / "questions").mkdir(parents=True)
    (tmp_path / "unicycle" / "questions" / "q.json").write_text('{"questions": []}')
    task = build_task(load_plugins([]), "cyclist_l1")
    with pytest.raises(
        DataError, match=r"2 layouts at once: questions/unicycle \(kind first\); unicycle \(tier first\)"
    ):
        task.load_docs(tmp_path)
    with pytest.raises(DataError) as err:
        build_task(load_plugins([]), "cyclist_l4").load_docs(tmp_path)
    message = str(err.value)
    assert str(tmp_path) in message and "questions/tricycle/<split>/*.json" in message
    assert "huggingface-cli download AIML-TUDA/CycliST --repo-type dataset" in message
    assert "python -m harness build cyclist --tier L4 --split test" in message


def test_a_split_the_release_folder_lacks_is_named_with_the_fix(tmp_path):
    write_release(tmp_path, tiers=("L1",), splits=("test",))
    task = build_task(load_plugins([]), "cyclist_l1")
    with pytest.raises(
        DataError,
        match=r"no split 'train'.*questions/unicycle/train/ is missing; it has: test.*--split train",
    ):
        task.load_docs(tmp_path, split="train")


# ---- duplicates (issue 26 point 6), on the tier-first layout the loader has always read ------------------
def _tier_folder(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    release = write_release(tmp_path / "release", tiers=("L1",), splits=("test",))
    for kind in ("questions", "scenes", "videos"):
        (release / kind / "unicycle" / "test").rename(_mkparent(data / "unicycle" / kind))
    return data


def test_the_same_questions_in_two_files_are_dropped_as_duplicates_naming_both(tmp_path, caplog):
    data = _tier_folder(tmp_path)
    first = data / "unicycle" / "questions" / "questions_counting_occurance.json"
    copy = data / "unicycle" / "questions" / "questions_counting_occurance_copy.json"
    copy.write_text(first.read_text())
    task = build_task(load_plugins([]), "cyclist_l1")
    with caplog.at_level(logging.WARNING):
        loaded = task.load_split(data)
    assert len(loaded.docs) == SCENES * len(OFFICIAL)  # not doubled
    assert [d["reason"] for d in loaded.dropped] == ["duplicate"] * SCENES
    assert all(first.name in d["detail"] and copy.name in d["detail"] for d in loaded.dropped)
    warned = [r.getMessage() for r in caplog.records if "duplicates" in r.getMessage()]
    assert len(warned) == 1 and str(first) in warned[0] and str(copy) in warned[0]


def test_a_repeated_question_index_of_one_template_is_a_duplicate(tmp_path):
    data = _tier_folder(tmp_path)
    path = data / "unicycle" / "questions" / "questions_counting_frequency.json"
    content = json.loads(path.read_text())
    extra = dict(
        content["questions"][0], question="What is the orbit period of the cube?", video_filename="x.mp4"
    )
    (path.parent / "more_questions.json").write_text(json.dumps({"questions": [extra]}))
    task = build_task(load_plugins([]), "cyclist_l1")
    loaded = task.load_split(data)
    assert len(loaded.docs) == SCENES * len(OFFICIAL)
    assert [d["reason"] for d in loaded.dropped] == ["duplicate"]
    assert "same question_index" in loaded.dropped[0]["detail"]


# ---- targets per family, non-finite numbers, byte-order marks (issue 27 point 1) -------------------------
BAD_ROWS = [
    # (template file, field overrides, reason)
    ("counting_occurance.json", {"answer": math.nan}, "non_finite"),
    ("counting_occurance.json", {"answer": math.inf}, "non_finite"),
    ("counting_frequency.json", {"answer": -math.inf}, "non_finite"),
    ("counting_occurance.json", {"answer": True}, "bad_target"),
    ("counting_occurance.json", {"answer": -3}, "bad_target"),
    ("counting_occurence.json", {"answer": "many"}, "bad_target"),
    ("counting_occurence.json", {"answer": "2.5"}, "bad_target"),
    ("existential_descriptive_attributes.json", {"answer": "purple-ish"}, "bad_target"),
    ("existential_descriptive_attributes.json", {"answer": 5}, "bad_target"),
    ("universal_descriptive_compare.json", {"answer": "maybe"}, "bad_target"),
    ("cycle_representative_orbit.json", {"answer": "clockwise"}, "bad_target"),
    ("cycle_representative_clockwise.json", {"answer": "red"}, "bad_target"),
    ("cycle_representative_clockwise.json", {"answer": True}, "bad_target"),
    ("counting_occurance.json", {"template_filename": "zero_hop.json"}, "unknown_family"),
    ("counting_occurance.json", {"question_family_index": 999}, "unknown_template"),
    ("counting_occurance.json", {"question_family_index": True}, "unknown_template"),
    (
        "counting_occurance.json",
        {"family": "numeric_counting", "template_filename": "mine.json"},
        "unknown_template",
    ),
    ("counting_occurance.json", {"program": [{"type": "count", "value_inputs": [math.inf]}]}, "non_finite"),
    ("counting_occurance.json", {"video_index": math.nan}, "non_finite"),
]


@pytest.mark.parametrize("template, over, reason", BAD_ROWS, ids=[f"{r}:{o}" for _, o, r in BAD_ROWS])
def test_a_row_whose_target_does_not_fit_is_dropped_with_its_reason(tmp_path, template, over, reason):
    data = _tier_folder(tmp_path)
    path = data / "unicycle" / "questions" / f"questions_{template[:-5]}.json"
    content = json.loads(path.read_text())
    content["questions"][0].update(over)
    path.write_text(json.dumps(content))  # NaN / Infinity written as the JSON extensions Python reads
    task = build_task(load_plugins([]), "cyclist_l1")
    loaded = task.load_split(data)
    assert len(loaded.docs) == SCENES * len(OFFICIAL) - 1
    assert [d["reason"] for d in loaded.dropped] == [reason] and path.name in loaded.dropped[0]["detail"]


def test_counting_answers_as_the_release_types_them_are_accepted(tmp_path):
    data = _tier_folder(tmp_path)
    path = data / "unicycle" / "questions" / "questions_counting_occurance.json"
    content = json.loads(path.read_text())
    for q, answer in zip(content["questions"], (3.0, " 0 "), strict=True):
        q["answer"] = answer
    path.write_text(json.dumps(content))
    docs = build_task(load_plugins([]), "cyclist_l1").load_docs(data)
    assert sorted(d["target"] for d in docs if d["family"] == "numeric_counting") == [0, 3]


def test_byte_order_marks_are_accepted_in_question_and_scene_files(tmp_path):
    data = _tier_folder(tmp_path)
    for path in (data / "unicycle").rglob("*.json"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    state = load_plugins([])
    vqa, cap = build_task(state, "cyclist_l1"), build_task(state, "cyclist_caption_l1")
    assert [(len(s.docs), s.dropped) for s in (vqa.load_split(data), cap.load_split(data))] == [
        (SCENES * len(OFFICIAL), []),
        (SCENES, []),
    ]


def test_an_unreadable_file_is_one_counted_row_and_the_rest_runs(tmp_path):
    data = _tier_folder(tmp_path)
    (data / "unicycle" / "questions" / "questions_counting_occurence.json").write_text('{"questions": [')
    scene = sorted((data / "unicycle" / "scenes").glob("*.json"))[0]
    scene.write_text("{not json")
    state = load_plugins([])
    vqa, cap = build_task(state, "cyclist_l1"), build_task(state, "cyclist_caption_l1")
    vqa_split, cap_split = vqa.load_split(data), cap.load_split(data)
    assert len(vqa_split.docs) == SCENES * (len(OFFICIAL) - 1)
    assert [d["reason"] for d in vqa_split.dropped] == ["invalid_json"]
    assert len(cap_split.docs) == SCENES - 1 and [d["reason"] for d in cap_split.dropped] == ["invalid_json"]


def test_the_template_table_matches_the_builders_template_files():
    from harness_builders.cyclist.questions.templates import TEMPLATE_DIR

    for path in sorted(TEMPLATE_DIR.glob("*.json")):
        content = json.loads(path.read_text())
        assert TEMPLATE_FILES[path.stem] == (content["family"], len(content["templates"])), path.name
