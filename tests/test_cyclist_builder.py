"""CycliST builder: periodicity, margins, balance, tiers, relations, determinism, shards, bad input."""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np
import pytest

from harness_builders.cyclist.commands import CyclistBuilder
from harness_builders.cyclist.config import (
    Composition,
    SceneSettings,
    check_feasible,
    parse_cycles,
    plan_scene,
)
from harness_builders.cyclist.constants import CYCLE_TYPES
from harness_builders.cyclist.pipeline import BuildJob, run_build
from harness_builders.cyclist.scene import dump_scene, generate_scene
from harness_builders.cyclist.state import frame_states

SET = SceneSettings()


def _scene(tier="L1", index=0, cycles=None, settings=SET):
    comp = Composition(tier=tier, cycles=parse_cycles(cycles) if cycles else None)
    return generate_scene(settings, plan_scene(comp, "test", index), 0).scene


@pytest.mark.parametrize("kind", CYCLE_TYPES)
def test_every_cycle_type_returns_to_its_start_each_period(kind):
    for index in range(3):
        scene = _scene(cycles=kind, index=index)
        st = frame_states(scene)
        i = next(k for k, c in enumerate(st.cycles) if kind in c)
        p = st.cycles[i][kind]
        assert st.num_frames % p == 0
        T = st.num_frames
        base = {
            "linear": st.position,
            "orbit": st.position,
            "rotate": st.rotation[..., None],
            "resize": st.scale[..., None],
            "recolor": st.color_rgb,
        }[kind]
        for t in range(T - p):
            np.testing.assert_allclose(base[i, t + p], base[i, t], atol=1e-6)
        assert not np.allclose(base[i, p // 2], base[i, 0])  # it does change within a period


def test_light_cycle_is_periodic_and_cosine():
    scene = _scene(tier="L5", index=1)
    st = frame_states(scene)
    p = scene["lights"]["period"]
    t = np.arange(st.num_frames)
    np.testing.assert_allclose(st.light_intensity, 0.5 * np.cos(2 * np.pi * (t % p) / p) + 0.5, atol=1e-6)


def test_stacked_orbits_follow_their_moving_center():
    scene = _scene(cycles="linear,orbit,orbit", index=3)
    st = frame_states(scene)
    for i, obj in enumerate(scene["objects"]):
        if "orbit" in obj.get("cycles", {}):
            offset = st.position[i, :, :2] - st.position[obj["center"], :, :2]
            np.testing.assert_allclose(np.linalg.norm(offset, axis=1), obj["orbit_radius"], atol=1e-5)
            p = obj["cycles"]["orbit"]["period"]
            np.testing.assert_allclose(offset[p:], offset[:-p], atol=1e-5)


@pytest.mark.parametrize("tier", ["L1", "L2", "L3", "L4", "L5"])
def test_no_pair_closer_than_margin_and_tier_counts(tier):
    for index in range(6):
        scene = _scene(tier=tier, index=index)
        st = frame_states(scene)
        pos = st.position[..., :2]
        d = np.linalg.norm(pos[:, None] - pos[None], axis=-1)
        d[np.arange(len(pos)), np.arange(len(pos))] = np.inf
        assert d.min() >= scene["minimum_distance"]
        # the tier fixes the number of cycles; several may share an object (the official assignment)
        cyclic = sum(1 for o in scene["objects"] if o.get("cycles"))
        cycles = sum(len(o.get("cycles") or {}) for o in scene["objects"])
        base = scene["base_tier"]
        assert cycles == {"L1": 1, "L2": 1, "L3": 2, "L4": 3}[base] and 1 <= cyclic <= cycles
        assert all(len(set(o.get("cycles") or {}) & {"orbit", "linear"}) <= 1 for o in scene["objects"])
        lo, hi = (4, 9) if base == "L2" else (2, 3)
        assert lo <= scene["number_of_clutter_objects"] <= hi
        assert ("lights" in scene) == (tier == "L5")
        assert all(o["mesh"] != "Sphere" for o in scene["objects"] if "rotate" in o.get("cycles", {}))


def test_cycle_types_balanced_within_split():
    for tier, n in (("L1", 10), ("L3", 30)):
        counts = Counter()
        for index in range(n):
            for group in plan_scene(Composition(tier), "val", index).cyclic:
                counts.update(group)
        assert len(set(counts.values())) == 1 and set(counts) == set(CYCLE_TYPES)


def test_cycles_share_objects_and_resize_starts_either_size():
    """Issue 17: the official generator lets one object carry several cycles (never two on one property)
    and resizing objects start small or large; the presets used to give each object one cycle and every
    resizing object started small."""
    shared, starts = 0, Counter()
    for index in range(60):
        plan = plan_scene(Composition("L3"), "test", index)
        shared += any(len(g) > 1 for g in plan.cyclic)
        for g in plan.cyclic:
            assert sum(k in ("orbit", "linear") for k in g) <= 1 and len(set(g)) == len(g)
    for index in range(0, 40, 5):  # L1 plans cycle through the five types: index % 5 == 2 is resize
        scene = _scene(tier="L1", index=index + 2)
        starts.update(o["size"] for o in scene["objects"] if "resize" in o.get("cycles", {}))
    assert shared > 0
    assert starts["small"] > 0 and starts["large"] > 0


def test_relations_agree_with_positions():
    scene = _scene(tier="L4", index=2)
    st = frame_states(scene)
    for rel in ("left", "right", "front", "behind"):
        d = np.asarray(scene["directions"][rel][:2])
        for t in (0, 37, 159):
            got = {tuple(p) for p in scene["relationships"][rel][str(t)]}
            for i in range(len(st.meshes)):
                for j in range(len(st.meshes)):
                    if i != j:
                        v = st.position[j, t, :2] - st.position[i, t, :2]
                        assert ((i, j) in got) == (v @ d / np.linalg.norm(v) > 0.5)
    # left is opposite right: j left of i iff i right of j
    left = {tuple(p) for p in scene["relationships"]["left"]["5"]}
    right = {tuple(p) for p in scene["relationships"]["right"]["5"]}
    assert {(j, i) for i, j in left} == right


def test_scene_json_is_byte_identical_per_seed_and_differs_across_seeds():
    plan = plan_scene(Composition("L3"), "train", 4)
    a, b = (dump_scene(generate_scene(SET, plan, 7).scene) for _ in range(2))
    assert a == b
    assert a != dump_scene(generate_scene(SET, plan, 8).scene)
    assert json.loads(a)["relationships"]["above"] == {}


def test_impossible_settings_fail_fast_with_reason():
    tight = SceneSettings(minimum_distance=5.0)
    with pytest.raises(ValueError, match="minimum_distance"):
        check_feasible(tight, Composition("L2"))
    with pytest.raises(ValueError, match="linear and orbit"):
        parse_cycles("linear+orbit")


def _args(tmp_path, *extra):
    parser = argparse.ArgumentParser()
    builder = CyclistBuilder()
    builder.add_arguments(parser)
    return builder, parser.parse_args(["--out", str(tmp_path), "--no_progress", *extra])


def test_cli_build_shards_merge_to_single_build_and_refuse_other_config(tmp_path):
    common = ["--tier", "L3", "--num-scenes", "5", "--frames", "16", "--fps", "8", "--size", "64x36"]
    builder, args = _args(tmp_path / "single", *common)
    assert builder.run(args) == 0
    for k in range(2):
        builder, args = _args(tmp_path / "merged", *common, "--shard", f"{k}/2")
        assert builder.run(args) == 0
    single = sorted((tmp_path / "single" / "scenes" / "bicycle" / "test").iterdir())
    merged = sorted((tmp_path / "merged" / "scenes" / "bicycle" / "test").iterdir())
    assert [p.name for p in single] == [p.name for p in merged]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(single, merged, strict=False))
    manifest = json.loads((tmp_path / "merged" / "build" / "bicycle" / "test" / "manifest.json").read_text())
    assert manifest["counts"]["scenes"] == 5
    assert len(list((tmp_path / "merged" / "videos" / "bicycle" / "test").glob("*.mp4"))) == 5
    builder, args = _args(tmp_path / "single", *common[:-2], "--size", "96x54")
    with pytest.raises(ValueError, match="another configuration"):
        builder.run(args)


def test_demo_builds_tiny_l1(tmp_path):
    (ds,) = CyclistBuilder().demo(tmp_path)
    for split in ("test", "train"):  # the train split feeds the `prior` baseline; the release's layout
        assert len(list((ds.data_dir / "scenes" / "unicycle" / split).glob(f"{split}_*_config.json"))) == 6
        assert len(list((ds.data_dir / "videos" / "unicycle" / split).glob(f"{split}_*.mp4"))) == 6
        assert len(list((ds.data_dir / "masks" / "unicycle" / split).glob("*.json"))) == 6
        questions = sorted((ds.data_dir / "questions" / "unicycle" / split).glob("questions_*.json"))
        assert "questions_numeric_counting.json" in [p.name for p in questions] and len(questions) >= 10
    assert ds.tasks == ["cyclist_l1", "cyclist_caption_l1"]


def test_run_build_streams_without_renderer(tmp_path):
    job = BuildJob(tmp_path, SceneSettings(number_of_frames=32), Composition("L2"), "val", 4, 0, None)
    manifest = run_build(job, progress=False)
    assert manifest["counts"]["scenes"] == 4 and not (tmp_path / "videos").exists()
    assert len(list((tmp_path / "scenes" / "unicycle_cluttered" / "val").glob("val_*_config.json"))) == 4


def test_a_folder_with_an_earlier_one_tier_build_is_refused(tmp_path):
    (tmp_path / "build_config.json").write_text("{}")
    job = BuildJob(tmp_path, SceneSettings(number_of_frames=32), Composition("L1"), "test", 1, 0, None)
    with pytest.raises(ValueError, match="earlier one-tier layout.*new --out"):
        run_build(job, progress=False)


def test_builder_and_task_read_one_vocabulary():
    """Issue 28: the CycliST vocabulary is one data file (tasks/cyclist/vocabulary.json) that the task and
    the builder both read; the builder's release spellings and plan order are derived from or checked
    against it."""
    from harness_builders.cyclist import constants
    from harness_builders.cyclist.config import TIERS as BUILD_TIERS
    from harness_builders.cyclist.questions import state as engine
    from harness_tasks.cyclist import vocab

    assert constants.VOCABULARY_FILE.resolve() == vocab.VOCABULARY_FILE.resolve()
    assert constants.COLORS == vocab.COLORS == engine.COLORS == tuple(constants.COLORS_255)
    assert constants.SIZE_NAMES == vocab.SIZES == engine.SIZES
    assert constants.SHAPES == vocab.SHAPES and constants.MESHES == ("Cone", "Cube", "Cylinder", "Sphere")
    assert constants.MATERIAL_NAMES == vocab.MATERIALS and constants.MATERIALS == ("Metal", "Rubber")
    assert (
        constants.MATERIAL_ALIASES == vocab.MATERIAL_ALIASES and vocab.MATERIAL_ALIASES["mymetal"] == "metal"
    )
    assert set(constants.CYCLE_TYPES) == set(vocab.CYCLES) and constants.RELATIONS == vocab.RELATIONS
    assert {k: (t.folder, t.title) for k, t in BUILD_TIERS.items()} == vocab.TIERS


def test_one_decoder_reads_named_and_factor_resize_keys_and_release_frame_counts():
    """harness_builders.cyclist.state decodes per-frame state for the renderer and the question engine alike:
    resize keys given as sizes or as the release's factors (repeated frames: the last), and scenes with
    fps x duration only."""
    from harness_builders.cyclist.questions.sample_scenes import make_scene
    from harness_builders.cyclist.questions.state import SceneState
    from harness_builders.cyclist.state import frame_states

    scene = make_scene(
        [{"mesh": "Cube", "size": "small", "cycles": {"resize": {"period": 80}}}], duration=5.0
    )
    scene.pop("number_of_frames", None)
    named = json.loads(json.dumps(scene))
    factor_states = named["objects"][0]["cycles"]["resize"]["states"]
    sizes, running = [], 1.0
    for s in factor_states:
        running *= s["factor"]
        sizes.append("small" if abs(running - 1.0) < 1e-6 else "large")
    named["objects"][0]["cycles"]["resize"]["states"] = [
        {"frame": s["frame"], "size": z} for s, z in zip(factor_states, sizes, strict=True)
    ] + [{"frame": factor_states[-1]["frame"], "size": sizes[-1]}]  # a repeated key frame
    for sc in (scene, named):
        ours, theirs = SceneState(sc, "s"), frame_states(sc)
        assert ours.num_frames == theirs.num_frames == 160
        assert (np.array(["small", "large"])[ours.size_codes] == theirs.size.astype(str)).all()
        assert set(theirs.size[0]) == {"small", "large"} and theirs.scale[0].max() == 0.5


def test_rvtbench_reads_every_tier_of_a_build_with_distinct_video_ids(tmp_path):
    """`build rvtbench --from-synthetic DIR` on a root holding two tiers: every rendered scene, no two
    with one video id (each tier's scenes are named test_0, test_1, ...)."""
    from harness_builders.rvtbench.synthetic import scene_paths

    for tier in ("L1", "L3"):
        builder, args = _args(
            tmp_path, "--tier", tier, "--num-scenes", "2", "--frames", "8", "--size", "32x18"
        )
        assert builder.run(args) == 0
    stems = [stem for stem, *_ in scene_paths(tmp_path)]
    assert sorted(stems) == ["bicycle_test_0", "bicycle_test_1", "unicycle_test_0", "unicycle_test_1"]


@pytest.mark.parametrize(
    ("flags", "why"),
    [
        (["--num-scenes", "0"], "--num-scenes 0: need at least 1 scene"),  # before: exit 0, an empty build
        (["--num-scenes", "-1"], "--num-scenes -1: need at least 1 scene"),
        (["--size", "100000x100000"], "each side must be between 1 and 7680"),  # before: a MemoryError traceback
        (["--frames", "100000000"], "at most 10000 frames"),  # before: ran until killed
        (["--minimum-distance", "nan"], "must be a finite number"),  # before: 'cannot convert float NaN'
    ],
)
def test_unbounded_or_empty_builds_are_refused_naming_the_flag(tmp_path, flags, why):
    builder, args = _args(tmp_path / "out", "--tier", "L1", "--num-scenes", "1", "--renderer", "raster", *flags)
    with pytest.raises(ValueError, match=why):
        builder.run(args)
    assert not (tmp_path / "out" / "videos").exists(), "refused before anything is written"
