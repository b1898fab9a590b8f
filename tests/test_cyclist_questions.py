"""CycliST question generator: families, answers checked independently from per-frame states, temporal
quantifiers, balance, periods/passes, determinism, bad scenes and bad templates."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from harness_builders.cyclist.questions import (
    FAMILIES,
    SceneState,
    TemplateError,
    execute,
    generate_questions,
    load_templates,
    scene_ground_truth,
)
from harness_builders.cyclist.questions.sample_scenes import make_scene, random_scene

# ----- an independent reading of the scene JSON (plain loops, no engine code) ---------------------


def _frames(scene):
    if "number_of_frames" in scene:
        return scene["number_of_frames"]
    return int(round(scene["fps"] * scene["duration"]))


def _per_frame_keyed(states, key, initial, frames, transform=None):
    """Value at frames 1..F from key frames: the earlier key's value up to the interval midpoint."""
    by_frame = {}
    for s in states:
        by_frame[s["frame"]] = s
    keys = sorted(by_frame)
    values = [by_frame[k][key] for k in keys]
    if transform:
        values = transform(values)
    out = []
    for f in range(1, frames + 1):
        prev = max([i for i, k in enumerate(keys) if k <= f], default=0)
        nxt = min(prev + 1, len(keys) - 1)
        span = keys[nxt] - keys[prev]
        u = (f - keys[prev]) / span if span > 0 else 0.0
        out.append(values[nxt] if u > 0.5 else values[prev])
    return out


class Truth:
    """Per-frame colours, sizes and relations read straight from the JSON."""

    def __init__(self, scene):
        self.scene, self.F = scene, _frames(scene)
        self.objs = scene["objects"]
        self.color, self.size = [], []
        for o in self.objs:
            cyc = o.get("cycles", {})
            if "recolor" in cyc:
                self.color.append(_per_frame_keyed(cyc["recolor"]["states"], "color", o["color"], self.F))
            else:
                self.color.append([o["color"]] * self.F)
            if "resize" in cyc:
                other = "small" if o["size"] == "large" else "large"

                def to_sizes(factors, o=o, other=other):
                    scale, out = 1.0, []
                    for f in factors:
                        scale *= f
                        out.append(o["size"] if abs(scale - 1.0) < 1e-6 else other)
                    return out

                self.size.append(
                    _per_frame_keyed(cyc["resize"]["states"], "factor", o["size"], self.F, to_sizes)
                )
            else:
                self.size.append([o["size"]] * self.F)
        self.rel = {
            r: [{tuple(p) for p in scene["relationships"][r][str(f)]} for f in range(self.F)]
            for r in ("left", "right", "behind", "front")
        }

    def has(self, o, kinds):
        return any(k in self.objs[o].get("cycles", {}) for k in kinds)


_CYCLE_FILTER = {
    "filter_orbit": ["orbit"],
    "filter_linear": ["linear"],
    "filter_rotate": ["rotate"],
    "filter_change_color": ["recolor"],
    "filter_enlarge": ["resize"],
    "filter_motion": ["orbit", "linear"],
}


def _describes(program, k):
    """Whether node k's output reaches a `unique` through filter nodes only."""
    for c, node in enumerate(program):
        if k in node["inputs"]:
            if node["type"] == "unique" or (node["type"].startswith("filter_") and _describes(program, c)):
                return True
    return False


def independent_answer(truth: Truth, program):
    """Evaluate a question program with plain per-frame loops over the JSON (official conventions)."""
    t, out = truth, []
    n = len(t.objs)
    for k, node in enumerate(program):
        fn, args, vals = node["type"], [out[i] for i in node["inputs"]], node["value_inputs"]
        frames = range(t.F)
        if fn == "scene":
            r = set(range(n))
        elif fn in ("filter_color", "filter_size"):
            seq = t.color if fn == "filter_color" else t.size
            if _describes(program, k):  # a description: the initial appearance
                r = {o for o in args[0] if t.objs[o][fn[7:]] == vals[0]}
            else:  # a property: ever
                r = {o for o in args[0] if any(seq[o][f] == vals[0] for f in frames)}
        elif fn.startswith("filter_") and fn.rsplit("_", 1)[-1] in ("existential", "universal"):
            attr, q = fn.split("_")[1], fn.rsplit("_", 1)[-1]
            seq = t.color if attr == "color" else t.size
            test = any if q == "existential" else all
            r = {o for o in args[0] if test(seq[o][f] == vals[0] for f in frames)}
        elif fn == "filter_shape":
            r = {o for o in args[0] if t.objs[o]["mesh"].lower() == vals[0]}
        elif fn == "filter_material":
            r = {o for o in args[0] if t.objs[o]["material"].lower() == vals[0]}
        elif fn in _CYCLE_FILTER:
            want = not (vals and vals[0] in (False, "False"))
            r = {o for o in args[0] if t.has(o, _CYCLE_FILTER[fn]) == want}
        elif fn == "unique":
            assert len(args[0]) == 1
            r = next(iter(args[0]))
        elif fn == "include":
            r = args[0] in args[1]
        elif fn == "count":
            r = len(args[0])
        elif fn in ("relate_existential", "relate_universal"):
            # the official direction: the objects a with x R of a, i.e. pairs (a, x)
            test = any if fn.endswith("existential") else all
            r = {
                a
                for a in range(n)
                if a != args[0] and test((a, args[0]) in t.rel[vals[0]][f] for f in frames)
            }
        elif fn.startswith("equal_") and fn.split("_")[1] in ("color", "size"):
            seq = t.color if "color" in fn else t.size
            test = any if fn.endswith("existential") else all
            r = test(seq[args[0]][f] == seq[args[1]][f] for f in frames)
        elif fn == "query_orbit":
            r = t.objs[args[0]]["center"]
        elif fn in ("query_color", "query_size"):
            seq = (t.color if fn == "query_color" else t.size)[args[0]]
            assert len(set(seq)) == 1, "query of a changing attribute must have been rejected"
            r = seq[0]
        elif fn == "query_shape":
            r = t.objs[args[0]]["mesh"].lower()
        elif fn == "query_material":
            r = t.objs[args[0]]["material"].lower()
        elif fn == "query_orbit_direction":
            r = t.objs[args[0]]["orbit_direction"]
        elif fn.endswith("_initial"):
            r = (t.color if "color" in fn else t.size)[args[0]][0]
        elif fn.endswith("_final"):
            seq = (t.color if "color" in fn else t.size)[args[0]]
            r = next(v for v in seq if v != seq[0])
        elif fn == "query_motion_period":
            cyc = t.objs[args[0]]["cycles"]
            r = (cyc.get("orbit") or cyc["linear"])["period"]
        elif fn.endswith("_period"):
            r = t.objs[args[0]]["cycles"][fn.split("_")[1]]["period"]
        elif fn.endswith("_passes"):
            period = t.objs[args[0]]["cycles"][fn.split("_")[1]]["period"]
            r = sum(1 for k in range(1, t.F + 1) if k * period <= t.F)
        else:
            raise AssertionError(f"independent checker has no rule for {fn}")
        out.append(r)
    return out[-1]


# ----- scenes -------------------------------------------------------------------------------------


def rich_scene(index=0):
    """One object of every cycle type plus clutter, with known periods."""
    return make_scene(
        [
            {"mesh": "Cube", "color": "red", "size": "large", "location": (-3, -3)},
            {"mesh": "Sphere", "color": "blue", "size": "small", "material": "Metal", "location": (3, 3)},
            {
                "mesh": "Cone",
                "color": "green",
                "location": (0, 0),
                "cycles": {"orbit": {"period": 80, "center": 0, "direction": "clockwise"}},
            },
            {
                "mesh": "Cylinder",
                "color": "yellow",
                "location": (3, -3),
                "cycles": {"recolor": {"period": 32, "to": "purple"}},
            },
            {
                "mesh": "Cube",
                "color": "brown",
                "size": "small",
                "location": (-3, 3),
                "cycles": {"resize": {"period": 160}},
            },
            {
                "mesh": "Cone",
                "color": "cyan",
                "location": (0, 4),
                "cycles": {"linear": {"period": 32, "to": (0, 1)}, "rotate": {"period": 80}},
            },
        ],
        index=index,
    )


def batch(n, seed=0, **kw):
    rng = random.Random(seed)
    return [
        random_scene(rng, n_cyclic=rng.choice([1, 2, 3]), n_clutter=rng.choice([2, 3, 4]), index=i, **kw)
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def many():
    scenes = batch(300, seed=3)
    return scenes, generate_questions(scenes, seed=0)


# ----- tests --------------------------------------------------------------------------------------


def test_every_family_produced_on_scenes_with_every_cycle():
    out = generate_questions([rich_scene(i) for i in range(6)], seed=0)
    assert {q["family"] for q in out["questions"]} == set(FAMILIES)
    q = out["questions"][0]
    for key in (
        "split",
        "video_filename",
        "video_index",
        "question",
        "program",
        "answer",
        "template_filename",
        "question_family_index",
        "question_index",
        "family",
        "quantifier",
        "category",
        "tier",
        "answer_type",
    ):
        assert key in q
    assert [q["question_index"] for q in out["questions"]] == list(range(len(out["questions"])))


def test_no_cycle_questions_for_absent_cycle_types():
    scene = make_scene(
        [
            {"mesh": "Cube", "color": "red", "location": (-3, 0)},
            {"mesh": "Sphere", "color": "blue", "location": (3, 0)},
            {"mesh": "Cylinder", "color": "gray", "location": (0, 3), "cycles": {"rotate": {"period": 32}}},
        ]
    )
    out = generate_questions([scene] * 4, seed=0)
    families = {q["family"] for q in out["questions"]}
    assert not families & {
        "cycle_representative_orbit",
        "cycle_representative_clockwise",
        "cycle_representative_transition",
    }
    # the official periodicity / occurrence templates ask about motion only; counting still applies
    assert not families & {"numeric_periodicity", "numeric_occurrence"}
    assert "numeric_counting" in families


def test_answers_match_independent_check(many):
    scenes, out = many
    by_video = {s["video_file"]: Truth(s) for s in scenes}
    sample = random.Random(0).sample(out["questions"], 600)
    for q in sample:
        assert independent_answer(by_video[q["video_filename"]], q["program"]) == q["answer"], q["question"]


def test_programs_re_execute_to_the_answer(many):
    scenes, out = many
    states = {s["video_file"]: SceneState(s, s["video_file"]) for s in scenes[:40]}
    for q in out["questions"]:
        if q["video_filename"] in states:
            assert execute(q["program"], states[q["video_filename"]])[-1] == q["answer"]


def _relate_program(a, b, rel, quantifier):
    """ "Is the cube <rel> the sphere?" in the official convention: include(sphere, relate(cube, rel))."""
    return [
        {"type": "scene", "inputs": [], "value_inputs": []},
        {"type": "filter_shape", "inputs": [0], "value_inputs": ["cube"]},
        {"type": "unique", "inputs": [1], "value_inputs": []},
        {"type": "scene", "inputs": [], "value_inputs": []},
        {"type": "filter_shape", "inputs": [3], "value_inputs": ["sphere"]},
        {"type": "unique", "inputs": [4], "value_inputs": []},
        {"type": f"relate_{quantifier}", "inputs": [2], "value_inputs": [rel]},
        {"type": "include", "inputs": [5, 6], "value_inputs": []},
    ]


def _two_objects():
    return make_scene([{"mesh": "Cube", "location": (-3, 0)}, {"mesh": "Sphere", "location": (3, 0)}])


@pytest.mark.parametrize("frame", [0, 57, 159])
def test_universal_false_when_one_frame_breaks(frame):
    scene = _two_objects()  # the cube (0) is left of the sphere (1) in every frame: pair (1, 0) under left
    prog = _relate_program(0, 1, "left", "universal")
    assert execute(prog, SceneState(scene))[-1] is True
    broken = copy.deepcopy(scene)
    broken["relationships"]["left"][str(frame)].remove([1, 0])
    assert execute(prog, SceneState(broken))[-1] is False
    assert independent_answer(Truth(broken), prog) is False


@pytest.mark.parametrize("frame", [0, 80, 159])
def test_existential_true_when_one_frame_satisfies(frame):
    scene = _two_objects()  # the cube is never right of the sphere
    prog = _relate_program(0, 1, "right", "existential")
    assert execute(prog, SceneState(scene))[-1] is False
    changed = copy.deepcopy(scene)
    changed["relationships"]["right"][str(frame)].append([1, 0])
    assert execute(prog, SceneState(changed))[-1] is True


def test_quantified_attributes_on_a_colour_cycle():
    scene = make_scene(
        [{"mesh": "Cube", "color": "red", "cycles": {"recolor": {"period": 160, "to": "blue"}}}]
    )
    state = SceneState(scene)
    assert state.color_ever[0] == {"red", "blue"} and state.color_always[0] is None

    def ask(fn, value):
        prog = [
            {"type": "scene", "inputs": [], "value_inputs": []},
            {"type": fn, "inputs": [0], "value_inputs": [value]},
        ]
        return execute(prog, state)[-1]

    assert ask("filter_color_existential", "blue") == {0} and ask("filter_color_universal", "red") == set()
    # a key frame list that keeps the object red except in one frame: "always red" becomes false
    one = make_scene([{"mesh": "Cube", "color": "red"}])
    one["objects"][0]["cycles"] = {
        "recolor": {
            "period": 160,
            "states": [
                {"color": "red", "frame": 1},
                {"color": "red", "frame": 99},
                {"color": "blue", "frame": 100},
                {"color": "red", "frame": 101},
                {"color": "red", "frame": 160},
            ],
        }
    }
    s1 = SceneState(one)
    assert (s1.color_codes[0] != s1.color_codes[0, 0]).sum() == 1
    assert s1.color_always[0] is None and "blue" in s1.color_ever[0]


def test_balance_within_families(many):
    _, out = many
    by_family = {}
    for q in out["questions"]:
        by_family.setdefault(q["family"], Counter())[q["answer"]] += 1
    for family, counts in by_family.items():
        total = sum(counts.values())
        ordered = sorted(counts.values())
        if isinstance(next(iter(counts)), bool):
            assert 0.4 <= counts[True] / total <= 0.6, (family, counts)
        elif len(ordered) > 1:
            # CLEVR's rule: no answer exceeds 1.1 x the runner-up (within each 250-scene window, so x2 overall)
            assert ordered[-1] <= 1.1 * ordered[-2] * 2 + 2, (family, counts)
    assert (
        len(by_family["numeric_occurrence"]) >= 3 and len(by_family["cycle_representative_transition"]) >= 6
    )


def test_periods_and_passes_consistent_with_frame_count(many):
    scenes, out = many
    frames = {s["video_file"]: _frames(s) for s in scenes}
    seen = 0
    for q in out["questions"]:
        last = q["program"][-1]["type"]
        if last.endswith("_period"):
            assert (
                1 <= q["answer"] <= frames[q["video_filename"]]
                and frames[q["video_filename"]] % q["answer"] == 0
            )
            seen += 1
        if last.endswith("_passes"):
            F = frames[q["video_filename"]]
            period = execute(
                q["program"][:-1] + [dict(q["program"][-1], type=last.replace("passes", "period"))],
                SceneState(next(s for s in scenes if s["video_file"] == q["video_filename"])),
            )[-1]
            assert q["answer"] * period <= F < (q["answer"] + 1) * period
            seen += 1
    assert seen > 50


def test_deterministic_per_seed():
    scenes = batch(30, seed=1)
    a = generate_questions(scenes, seed=5)
    b = generate_questions(copy.deepcopy(scenes), seed=5)
    c = generate_questions(scenes, seed=6)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert [q["question"] for q in a["questions"]] != [q["question"] for q in c["questions"]]


def test_bad_scene_files_reported_by_name_and_field_and_counted(tmp_path):
    good = rich_scene()
    (tmp_path / "a_good.json").write_text(json.dumps(good))
    bad = copy.deepcopy(good)
    bad["objects"][2]["color"] = "orange"
    (tmp_path / "b_bad_color.json").write_text(json.dumps(bad))
    short = copy.deepcopy(good)
    del short["relationships"]["left"]["5"]
    (tmp_path / "c_short.json").write_text(json.dumps(short))
    (tmp_path / "d_broken.json").write_text("{not json")
    out = generate_questions(tmp_path, seed=0)
    info = out["info"]
    assert info["num_scenes"] == 1 and info["num_skipped"] == 3
    fields = {s["scene"]: s["field"] for s in info["skipped"]}
    assert fields == {
        "b_bad_color.json": "objects[2].color",
        "c_short.json": "relationships.left",
        "d_broken.json": "<file>",
    }
    assert {q["scene"] for q in out["questions"]} == {"a_good.json"}


def _write_family(tmp_path, template):
    data = {
        "family": "numeric_counting",
        "category": "numeric",
        "quantifier": "none",
        "templates": [template],
    }
    (tmp_path / "broken_family.json").write_text(json.dumps(data))


def test_unknown_function_fails_at_load_with_template_name(tmp_path):
    _write_family(
        tmp_path,
        {
            "text": ["How many?"],
            "params": [],
            "constraints": [],
            "nodes": [{"type": "scene", "inputs": []}, {"type": "count_everything", "inputs": [0]}],
        },
    )
    with pytest.raises(TemplateError, match=r"broken_family\.json.*template 0.*count_everything"):
        load_templates(tmp_path)


def test_untyped_slot_fails_at_load_with_template_name(tmp_path):
    _write_family(
        tmp_path,
        {
            "text": ["How many <C> things?"],
            "params": [],
            "constraints": [],
            "nodes": [{"type": "scene", "inputs": []}, {"type": "count", "inputs": [0]}],
        },
    )
    with pytest.raises(TemplateError, match=r"broken_family\.json.*slot <C>"):
        load_templates(tmp_path)


def test_ill_typed_program_fails_at_load(tmp_path):
    _write_family(
        tmp_path,
        {
            "text": ["?"],
            "params": [],
            "constraints": [],
            "nodes": [{"type": "scene", "inputs": []}, {"type": "query_color", "inputs": [0]}],
        },
    )
    with pytest.raises(TemplateError, match=r"query_color.*takes inputs \['Object'\]"):
        load_templates(tmp_path)


def test_families_filter_and_unknown_family():
    out = generate_questions([rich_scene()], families=["numeric_counting"], seed=0)
    assert {q["family"] for q in out["questions"]} == {"numeric_counting"}
    with pytest.raises(ValueError, match="unknown question families"):
        generate_questions([rich_scene()], families=["numeric_countin"])


def test_scene_ground_truth_lists_attributes_and_cycles():
    gt = scene_ground_truth(rich_scene())
    assert gt["num_frames"] == 160 and len(gt["objects"]) == 6
    orbit = gt["objects"][2]
    assert orbit["mesh"] == "cone" and orbit["orbit"] is True and orbit["linear"] is False
    assert orbit["cycles"]["orbit"] == {"period": 80, "passes": 2, "center": 0, "direction": "clockwise"}
    assert gt["objects"][3]["cycles"]["recolor"]["values"] == ["yellow", "purple"]
    assert gt["objects"][4]["cycles"]["resize"]["values"] == ["small", "large"]
    assert gt["objects"][0]["cycles"] == {} and not any(
        gt["objects"][0][k] for k in ("orbit", "rotate", "resize")
    )
