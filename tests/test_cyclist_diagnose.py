"""`diagnose cyclist DIR` re-executes stored programs: on a tiny dataset in the official release's schema
(scene JSON as the official generator writes it, questions with the official function names, value
spelling, `side_inputs` renamed to `value_inputs`, node `_output`s and bool answers) every stored answer
is reproduced; where the official handlers contradict the paper the report names the step; a project
build reproduces itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness_builders.cyclist.diagnose import diagnose, format_report
from harness_builders.cyclist.questions.sample_scenes import make_scene

ROOT = Path(__file__).resolve().parents[1]


def _official_scene():
    """Cube (0) left of a sphere (1); a cylinder (2) orbiting the cube; a cone (3) turning red -> blue.
    Written the way the official generator writes scenes: no tier / frame-count fields, split
    `unicycle_test`, capitalised meshes and materials."""
    scene = make_scene(
        [
            {"mesh": "Cube", "color": "red", "size": "large", "material": "Metal", "location": (-4, -3)},
            {"mesh": "Sphere", "color": "blue", "size": "small", "location": (4, -3)},
            {
                "mesh": "Cylinder",
                "color": "green",
                "location": (-4, 0),
                "cycles": {"orbit": {"period": 80, "center": 0, "direction": "clockwise", "radius": 2.0}},
            },
            {
                "mesh": "Cone",
                "color": "red",
                "size": "small",
                "location": (3, 3),
                "cycles": {"recolor": {"period": 160, "to": "blue"}},
            },
        ],
        split="unicycle_test",
        index=7,
    )
    for key in ("tier", "scene_index", "number_of_frames"):
        scene.pop(key, None)
    scene["video_file"] = "CycliST_unicycle_test_000007.mp4"
    return scene


def _node(type_, inputs, values=(), out=None):
    node = {"type": type_, "inputs": list(inputs), "value_inputs": list(values)}
    if out is not None:
        node["_output"] = out
    return node


def _official_questions():
    video = "CycliST_unicycle_test_000007.mp4"
    q = []

    def add(template, index, text, program, answer):
        q.append(
            {
                "split": "test",
                "video_filename": video,
                "video_index": 7,
                "video": video[:-4],
                "question": text,
                "program": program,
                "answer": answer,
                "template_filename": template,
                "question_family_index": index,
                "question_index": len(q),
            }
        )

    # "Is the metal cube ever left of the ball?": include(sphere, relate(cube, left))
    add(
        "existential_descriptive_relate.json",
        0,
        "Is the metal cube ever left of the ball?",
        [
            _node("scene", [], out=[0, 1, 2, 3]),
            _node("filter_material", [0], ["Metal"], out=[0]),
            _node("filter_shape", [1], ["Cube"], out=[0]),
            _node("unique", [2], out=0),
            _node("scene", [], out=[0, 1, 2, 3]),
            _node("filter_shape", [4], ["Sphere"], out=[1]),
            _node("unique", [5], out=1),
            _node("relate_existential", [3], ["left"], out=[1]),
            _node("include", [6, 7], out=True),
        ],
        True,
    )
    # the mirror: "Is the ball always left of the cube?" -> False
    add(
        "universal_descriptive_relate.json",
        0,
        "Is the ball always left of the cube?",
        [
            _node("scene", [], out=[0, 1, 2, 3]),
            _node("filter_shape", [0], ["Sphere"], out=[1]),
            _node("unique", [1], out=1),
            _node("scene", [], out=[0, 1, 2, 3]),
            _node("filter_shape", [3], ["Cube"], out=[0]),
            _node("unique", [4], out=0),
            _node("relate_universal", [2], ["left"]),
            _node("include", [5, 6], out=False),
        ],
        False,
    )
    # the description reads the initial colour (the cone starts red), the query part "ever blue" any frame
    add(
        "existential_descriptive_attributes.json",
        1,
        "Is the small red cone ever blue?",
        [
            _node("scene", [], out=[0, 1, 2, 3]),
            _node("filter_size", [0], ["small"], out=[1, 3]),
            _node("filter_color", [1], ["red"], out=[3]),
            _node("filter_shape", [2], ["Cone"], out=[3]),
            _node("unique", [3], out=3),
            _node("scene", [], out=[0, 1, 2, 3]),
            _node("filter_color", [5], ["blue"], out=[1, 3]),
            _node("include", [4, 6], out=True),
        ],
        True,
    )
    # counting with the cycle-filter value the official expansion writes (True)
    add(
        "counting_occurance.json",
        1,
        "How many objects are changing color in the scene?",
        [_node("scene", []), _node("filter_change_color", [0], [True], out=[3]), _node("count", [1], out=1)],
        1,
    )
    add(
        "counting_frequency.json",
        0,
        "What is the movement period in frames of the moving green cylinder?",
        [
            _node("scene", []),
            _node("filter_motion", [0], [True]),
            _node("filter_color", [1], ["green"]),
            _node("unique", [2]),
            _node("query_motion_period", [3]),
        ],
        80,
    )
    add(
        "cycle_representative_orbit.json",
        0,
        "There is an orbiting cylinder. What is the size of the object it is orbiting around?",
        [
            _node("scene", []),
            _node("filter_orbit", [0], [0]),
            _node("filter_shape", [1], ["Cylinder"]),
            _node("unique", [2]),
            _node("query_orbit", [3]),
            _node("query_size", [4]),
        ],
        "large",
    )
    add(
        "cycle_representative_clockwise.json",
        0,
        "In which clock direction is the cylinder orbiting?",
        [
            _node("scene", []),
            _node("filter_orbit", [0], [None]),
            _node("unique", [1]),
            _node("query_orbit_direction", [2]),
        ],
        "clockwise",
    )
    add(
        "cycle_representative_transition.json",
        1,
        "A cone is changing color periodically. What is the color it changes into?",
        [
            _node("scene", []),
            _node("filter_change_color", [0], [True]),
            _node("filter_shape", [1], ["Cone"]),
            _node("unique", [2]),
            _node("query_color_final", [3]),
        ],
        "blue",
    )
    add(
        "counting_occurence.json",
        0,
        "How many orbits does the cylinder do in the video?",
        [
            _node("scene", []),
            _node("filter_orbit", [0], [0]),
            _node("filter_shape", [1], ["Cylinder"]),
            _node("unique", [2]),
            _node("query_orbit_passes", [3]),
        ],
        2,
    )
    return {"info": {"split": "test", "version": "1.0"}, "questions": q}


def _write(root: Path, scene: dict, questions: dict) -> Path:
    (root / "scenes").mkdir(parents=True)
    (root / "questions").mkdir()
    (root / "scenes" / "CycliST_unicycle_test_000007.json").write_text(json.dumps(scene))
    (root / "questions" / "CycliST_unicycle_test_questions.json").write_text(json.dumps(questions))
    return root


def test_official_schema_fixture_is_reproduced(tmp_path):
    root = _write(tmp_path / "unicycle", _official_scene(), _official_questions())
    report = diagnose(root)
    text = format_report(report, root)
    assert report.total == 9 and report.reproduced == 9, text
    assert text.splitlines()[-1] == "reproduced 9/9 stored answers"
    assert report.families["existential_descriptive_relate"] == [1, 1]


def test_official_bug_is_listed_with_the_step_where_answers_part(tmp_path):
    """The official filter_size counts any object with a cycle as every size: it stored True for "is the
    cylinder ever small?" (the large cylinder only orbits). The engine follows the paper: False, and the
    report names the filter_size step by the stored node outputs."""
    data = _official_questions()
    data["questions"].append(
        {
            "split": "test",
            "video_filename": "CycliST_unicycle_test_000007.mp4",
            "question": "Is the cylinder ever small?",
            "program": [
                _node("scene", [], out=[0, 1, 2, 3]),
                _node("filter_shape", [0], ["Cylinder"], out=[2]),
                _node("unique", [1], out=2),
                _node("scene", [], out=[0, 1, 2, 3]),
                _node("filter_size", [3], ["small"], out=[1, 2, 3]),
                _node("include", [2, 4], out=True),
            ],
            "answer": True,
            "template_filename": "existential_descriptive_attributes.json",
            "question_family_index": 0,
        }
    )
    scene = _official_scene()
    scene["objects"][2]["size"] = "large"
    root = _write(tmp_path / "unicycle", scene, data)
    report = diagnose(root)
    assert (report.reproduced, report.total) == (9, 10)
    (m,) = report.mismatches
    assert m.stored is True and m.engine is False
    assert m.step.startswith('step 4 (filter_size ["small"])') and "stored [1, 2, 3], engine [1, 3]" in m.step


def test_cli_on_a_project_build_reproduces_every_answer(tmp_path):
    out = tmp_path / "l3"
    env_cmd = [sys.executable, "-m", "harness"]
    subprocess.run(
        [*env_cmd, "build", "cyclist", "--tier", "L3", "--num-scenes", "12", "--renderer", "none"]
        + ["--frames", "32", "--out", str(out), "--no_progress"],
        check=True,
        cwd=ROOT,
        capture_output=True,
    )
    done = subprocess.run(
        [*env_cmd, "diagnose", "cyclist", str(out)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    files = sorted((out / "questions" / "bicycle" / "test").glob("questions_*.json"))
    n = sum(len(json.loads(p.read_text())["questions"]) for p in files)
    assert n > 0 and last == f"reproduced {n}/{n} stored answers"


def test_release_scene_tier_counts_cycles_not_cyclic_objects():
    """A release Bicycle scene may put both cycles on one object; without a `tier` field it is still L3."""
    from harness_builders.cyclist.questions import SceneState

    scene = make_scene(
        [
            {"mesh": "Cube", "location": (-4, -3)},
            {"mesh": "Sphere", "location": (4, -3)},
            {
                "mesh": "Cone",
                "location": (-4, 0),
                "cycles": {
                    "orbit": {"period": 80, "center": 0, "direction": "clockwise", "radius": 2.0},
                    "recolor": {"period": 160, "to": "blue"},
                },
            },
        ],
        split="bicycle_test",
    )
    scene.pop("tier", None)
    assert SceneState(scene).tier == "L3"


# The official question engine's handler registry (questions/question_engine.py), less the entries it
# registers without an implementation (`*_period` filters / equalities / sames, filter_objectcategory).
OFFICIAL_HANDLERS = """scene filter_color filter_shape filter_material filter_size filter_color_universal
filter_size_universal filter_enlarge filter_orbit filter_linear filter_motion filter_rotate filter_change_color
relate_existential relate_universal except union intersect include unique count exist logical_and logical_or
logical_not query_color query_size query_shape query_material query_color_initial query_color_final
query_size_initial query_size_final query_orbit query_enlarge_period query_color_period query_motion_period
query_linear_period query_orbit_period query_linear_passes query_orbit_passes query_orbit_direction
equal_shape equal_material equal_object equal_color_existential equal_color_universal equal_size_existential
equal_size_universal less_than greater_than equal_integer equal_color equal_size same_color same_size
same_shape same_material""".split()


def test_engine_knows_every_official_handler():
    from harness_builders.cyclist.questions import FUNCTIONS

    assert sorted(set(OFFICIAL_HANDLERS) - set(FUNCTIONS)) == []
