"""RVTBench builder: DT schema, sub-tree nesting, exact ground truth, coverage and determinism (paper 002)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from builds import cyclist_scenes, harness_build

from harness_builders.rvtbench.dt import validate_dt
from harness_builders.rvtbench.facts import downsample, object_facts
from harness_builders.rvtbench.tree import build_tree, subtree
from harness_metrics import decode_rle


def _rvtbench_from(scenes: Path, out: Path, *options: str) -> None:
    """`build rvtbench --from-synthetic SCENES --out OUT OPTIONS...` in a fresh process."""
    harness_build("rvtbench", "--from-synthetic", str(scenes), "--out", str(out), *options)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """Three CycliST L2 scenes (5-10 objects) turned into an RVTBench set with every task type."""
    base = tmp_path_factory.mktemp("rvt")
    cy, out = cyclist_scenes(base / "cy", "L2", 3, seed=3), base / "rvt"
    _rvtbench_from(cy, out, "--assign", "all", "--seed", "1")
    return cy, out


def _samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]


def test_dt_json_validates_against_the_schema(built):
    _, out = built
    dts = sorted((out / "dt").glob("*.json"))
    assert len(dts) == 3
    for path in dts:
        dt = json.loads(path.read_text())
        validate_dt(dt, str(path))
        assert dt["metadata"]["duration"] == len(dt["frames"]) == 32
        inst = next(iter(dt["frames"][0]["instances"].values()))
        assert len(inst["depth_stats"]) == 2 and inst["visual_features"]["color_histogram"]
    broken = json.loads(dts[0].read_text())
    del broken["frames"][3]["instances"][next(iter(broken["frames"][3]["instances"]))]["depth_stats"]
    with pytest.raises(ValueError, match="frames/3/instances"):
        validate_dt(broken)


def test_subtrees_are_nested_by_level(built):
    import random

    _, out = built
    dt = json.loads(sorted((out / "dt").glob("*.json"))[0].read_text())
    facts = object_facts(downsample(dt, 4))
    for root in list(facts)[:3]:
        tree = build_tree(root, facts, random.Random(0))
        adjacency: dict[str, set[str]] = {}
        for e in tree["edges"]:
            adjacency.setdefault(e["source"], set()).add(e["target"])
        dist, frontier = {tree["root"]: 0}, [tree["root"]]
        while frontier:  # breadth-first distances from the root
            nxt = []
            for n in frontier:
                for m in adjacency.get(n, ()):
                    if m not in dist:
                        dist[m] = dist[n] + 1
                        nxt.append(m)
            frontier = nxt
        previous: set[str] = set()
        for level in (1, 2, 3, 4):
            ids = {n["id"] for n in subtree(tree, level)["nodes"]}
            assert ids == {n for n, d in dist.items() if d <= level}
            assert previous <= ids
            previous = ids


def test_ground_truth_equals_the_scene_masks(built):
    cy, out = built
    samples = [s for s in _samples(out) if s["task_type"] in ("segmentation", "grounding")]
    assert samples
    for s in samples:
        masks = json.loads(
            (cy / "masks" / "unicycle_cluttered" / "test" / f"{s['video_id']}.json").read_text()
        )
        for k, t in enumerate(s["answer"]["frames"]):
            scene = [decode_rle(masks["objects"][int(i)]["segmentations"][t])[0] for i in s["referents"]]
            if s["task_type"] == "segmentation":
                expected = np.any(scene, axis=0)
                assert np.array_equal(decode_rle(s["answer"]["masks"][k])[0], expected)
            else:
                boxes = [
                    masks["objects"][int(i)]["bbox"][t]
                    for i in s["referents"]
                    if masks["objects"][int(i)]["area"][t]
                ]
                assert np.allclose(s["answer"]["boxes"][k], boxes, atol=0.01)


def test_every_task_type_category_and_level_is_produced(built):
    _, out = built
    samples = _samples(out)
    assert {s["task_type"] for s in samples} == {"segmentation", "grounding", "vqa", "summary"}
    assert {c for s in samples for c in s["categories"]} == {"semantic", "spatial", "temporal"}
    assert {s["level"] for s in samples} == {1, 2, 3, 4}
    for s in samples:
        assert s["object_id"] in s["referents"]
        if s["task_type"] in ("vqa", "summary"):
            assert s["answer"]["text"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["samples"] == len(samples)


def test_same_seed_same_bytes_and_another_seed_differs(built, tmp_path):
    cy, out = built
    # twins built in two processes: the same bytes as the one-process build
    _rvtbench_from(cy, tmp_path / "again", "--assign", "all", "--seed", "1", "--workers", "2")
    assert (tmp_path / "again" / "test.jsonl").read_bytes() == (out / "test.jsonl").read_bytes()
    for dt in sorted((out / "dt").glob("*.json")):
        assert (tmp_path / "again" / "dt" / dt.name).read_bytes() == dt.read_bytes()
    _rvtbench_from(cy, tmp_path / "other", "--assign", "all", "--seed", "2")
    assert (tmp_path / "other" / "test.jsonl").read_bytes() != (out / "test.jsonl").read_bytes()


def test_rule_assignment_gives_one_type_per_object(built, tmp_path):
    cy, _ = built
    _rvtbench_from(cy, tmp_path / "rules", "--objects-per-video", "2")
    samples = _samples(tmp_path / "rules")
    per_object: dict[tuple[str, str], set[str]] = {}
    for s in samples:
        per_object.setdefault((s["video_id"], s["object_id"]), set()).add(s["task_type"])
    assert per_object and all(len(types) == 1 for types in per_object.values())


def test_unknown_part_names_the_flag(tmp_path):
    from harness_builders.rvtbench.parts import load_part

    with pytest.raises(ValueError, match="--segmenter nope: no part registered as 'rvtbench.segmenter.nope'"):
        load_part("segmenter", "nope")


def test_part_options_are_read_as_the_cores_model_args(tmp_path, capsys):
    """--segmenter-args / --depth-args are parsed by harness.api.parse_kv, as --model_args is: a bad item is one
    line naming the flag, exit 2, before any model is loaded."""
    from harness.cli.main import main

    (tmp_path / "v.mp4").write_bytes(b"")  # listed by suffix; the options are read before any video is decoded
    argv = ["build", "rvtbench", "--videos", str(tmp_path), "--out", str(tmp_path / "o"), "--no_progress"]
    assert main([*argv, "--depth-args", "batch_size=2,oops"]) == 2
    assert "error: --depth-args: 'oops' is not of the form key=value" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "why"),
    [
        (["--eval-frames", "100000000"], "--eval-frames 100000000: expected a whole number between 1 and 10000"),
        (["--max-side", "0"], "--max-side 0: expected a whole number at least 8"),  # before: accepted
        (["--keyframe-interval", "0"], "--keyframe-interval 0: expected a whole number at least 1"),
    ],
)
def test_out_of_range_flags_are_one_line_errors_before_anything_runs(tmp_path, capsys, flags, why):
    """Before: --eval-frames 10^8 ended in pydantic's multi-line validation error, --max-side 0 was accepted."""
    from harness.cli.main import main

    (tmp_path / "v.mp4").write_bytes(b"")  # the flags are read before any video is decoded
    argv = ["build", "rvtbench", "--videos", str(tmp_path), "--out", str(tmp_path / "o"), "--no_progress", *flags]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert why in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()
