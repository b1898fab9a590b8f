"""CycliST questions on scenes made by the scene builder (harness_builders.cyclist): families, independent answer
check, agreement of the per-frame state with the builder's own frame_states, the CLI."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
from test_cyclist_questions import Truth, independent_answer

from harness_builders.cyclist.commands import CyclistQuestionsBuilder
from harness_builders.cyclist.questions import FAMILIES, SceneState, generate_questions
from harness_builders.cyclist.questions.state import COLORS, SIZES

scene_mod = pytest.importorskip(
    "harness_builders.cyclist.scene", reason="the scene builder (issue 4) is not in this tree"
)
settings_mod = pytest.importorskip("harness_builders.cyclist.config")
state_mod = pytest.importorskip("harness_builders.cyclist.state")


@pytest.fixture(scope="module")
def scenes():
    out = []
    for tier in ("L1", "L2", "L3", "L4", "L5"):
        for i in range(16):
            plan = settings_mod.plan_scene(settings_mod.Composition(tier), "test", i)
            scene = scene_mod.generate_scene(settings_mod.SceneSettings(), plan, seed=7).scene
            # one folder per tier in a dataset; here all tiers share one list, so make the names unique
            scene["video_file"] = f"{tier}_{scene['video_file']}"
            scene["scene_config_file"] = f"{tier}_{scene['scene_config_file']}"
            out.append(scene)
    return out


@pytest.fixture(scope="module")
def questions(scenes):
    return generate_questions(scenes, seed=0)


def test_state_agrees_with_scene_builder_frame_states(scenes):
    for scene in scenes:
        ours, theirs = SceneState(scene, scene["video_file"]), state_mod.frame_states(scene)
        assert ours.num_frames == theirs.num_frames
        assert (np.array(COLORS)[ours.color_codes] == theirs.color.astype(str)).all()
        assert (np.array(SIZES)[ours.size_codes] == theirs.size.astype(str)).all()
        for obj, periods in zip(ours.objects, theirs.cycles, strict=True):
            assert {k: c.period for k, c in obj.cycles.items()} == periods


def test_all_families_and_independent_answers_on_generated_scenes(scenes, questions):
    assert questions["info"]["num_skipped"] == 0
    assert {q["family"] for q in questions["questions"]} == set(FAMILIES)
    truths = {s["video_file"]: Truth(s) for s in scenes}
    for q in questions["questions"]:
        assert independent_answer(truths[q["video_filename"]], q["program"]) == q["answer"], q["question"]
    assert {q["tier"] for q in questions["questions"]} == {"L1", "L2", "L3", "L4", "L5"}


def test_cycle_families_only_where_the_cycle_exists(scenes, questions):
    kinds = {s["video_file"]: {k for o in s["objects"] for k in o.get("cycles", {})} for s in scenes}
    need = {"cycle_representative_orbit": "orbit", "cycle_representative_clockwise": "orbit"}
    for q in questions["questions"]:
        if q["family"] in need:
            assert need[q["family"]] in kinds[q["video_filename"]]
        if q["family"] == "cycle_representative_transition":
            assert kinds[q["video_filename"]] & {"recolor", "resize"}


def test_cli_writes_release_format(tmp_path, scenes):
    folder = tmp_path / "scenes"
    folder.mkdir()
    for s in scenes[:10]:
        (folder / s["scene_config_file"]).write_text(json.dumps(s))
    builder = CyclistQuestionsBuilder()
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    out = tmp_path / "questions" / "test.json"
    gt = tmp_path / "gt.json"
    args = parser.parse_args(
        [
            "--scenes",
            str(folder),
            "--out",
            str(out),
            "--seed",
            "3",
            "--ground-truth",
            str(gt),
            "--families",
            "numeric_counting",
            "descriptive_universal_relate",
        ]
    )
    assert builder.run(args) == 0
    data = json.loads(out.read_text())
    assert data["info"]["num_scenes"] == 10
    assert {q["family"] for q in data["questions"]} <= {"numeric_counting", "descriptive_universal_relate"}
    assert all(isinstance(q["answer"], (bool, int)) for q in data["questions"])
    assert len(json.loads(gt.read_text())["scenes"]) == 10


def test_build_cyclist_writes_questions_by_default(tmp_path):
    plugin_mod = pytest.importorskip("harness_builders.cyclist.commands")
    builder = plugin_mod.CyclistBuilder()
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    out = tmp_path / "data"
    args = parser.parse_args(
        [
            "--tier",
            "L3",
            "--split",
            "test",
            "--num-scenes",
            "3",
            "--out",
            str(out),
            "--renderer",
            "none",
            "--no_progress",
        ]
    )
    assert builder.run(args) == 0
    files = sorted((out / "questions" / "bicycle" / "test").glob("questions_*.json"))  # the release's names
    parts = [json.loads(p.read_text()) for p in files]
    questions = [q for part in parts for q in part["questions"]]
    assert files and all(part["info"]["num_scenes"] == 3 for part in parts) and questions
    assert {q["split"] for q in questions} == {"test"} and {q["tier"] for q in questions} == {"L3"}
    assert all(
        p.name == f"questions_{part['questions'][0]['family']}.json"
        for p, part in zip(files, parts, strict=True)
    )
    assert len({q["question_index"] for q in questions}) == len(questions)
