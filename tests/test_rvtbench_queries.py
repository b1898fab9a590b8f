"""RVTBench queries as the paper builds them (category first, trees of that kind, unique on the DT, L = depth),
segmentation in every build, and VQA that measures correctness, on CycliST L5 scenes made by the builders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builds import cyclist_scenes, harness_build

from conftest import run_in
from harness_builders.rvtbench.facts import downsample, object_facts
from harness_builders.rvtbench.tree import execute

ROOT = Path(__file__).resolve().parents[1]
CELLS = [
    f"{t}|{c}|L{lv}"
    for t in ("segmentation", "grounding", "vqa", "summary")
    for c in ("semantic", "spatial", "temporal")
    for lv in (1, 2, 3, 4)
]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> Path:
    return cyclist_scenes(tmp_path_factory.mktemp("rvtq") / "cy", "L5", 4, seed=3)


@pytest.fixture(scope="module")
def full(scenes) -> Path:
    out = scenes.parent / "all"
    harness_build(
        "rvtbench",
        "--from-synthetic",
        str(scenes),
        "--out",
        str(out),
        "--assign",
        "all",
        "--objects-per-video",
        "4",
        "--seed",
        "1",
    )
    return out


def _samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]


def _chain(expr: dict) -> list[dict]:
    nodes = [expr]
    while nodes[-1].get("child"):
        nodes.append(nodes[-1]["child"])
    return nodes


def test_every_type_category_level_cell_is_filled_and_rejections_are_counted(full):
    counts = json.loads((full / "manifest.json").read_text())["counts"]
    assert counts["missing_cells"] == []
    assert all(counts["by_type_category_level"].get(c, 0) > 0 for c in CELLS)
    assert counts["rejected_ambiguous"] > 0 and counts["non_unique_referents"] == 0


def test_queries_are_unique_on_the_twin_and_their_level_is_the_tree_depth(full):
    samples = _samples(full)
    facts = {
        p.stem: object_facts(downsample(json.loads(p.read_text()), 4)) for p in (full / "dt").glob("*.json")
    }
    spatial_l1 = 0
    for s in samples:
        chain = _chain(s["expression"])
        assert execute(s["expression"], facts[s["video_id"]]) == [s["object_id"]] == s["referents"], s[
            "query"
        ]
        assert len(chain) == s["level"]  # L - 1 relations, then a leaf at depth L
        last = chain[-1]
        assert last["attrs"] or last["events"] or last["positions"]
        assert s["primary_category"] in s["categories"]
        if s["level"] == 1 and s["categories"] == ["spatial"]:
            assert s["expression"]["positions"] and not s["expression"]["attrs"]
            spatial_l1 += 1
        if s["primary_category"] == "spatial" and s["level"] > 1:
            relations = [n["rel"] for n in chain[:-1]]
            assert all(
                r in ("left_of", "right_of", "in_front_of", "behind", "same_depth_as") for r in relations
            )
    assert spatial_l1 > 0


def test_vqa_questions_vary_and_random_is_near_chance_while_oracle_is_perfect(full, tmp_path):
    from harness_tasks.rvtbench.loader import load_samples
    from harness_tasks.rvtbench.request import answer_space

    vqa = [s for s in _samples(full) if s["task_type"] == "vqa"]
    assert len({s["answer"]["kind"] for s in vqa}) >= 4
    assert (
        len({s["answer"]["canonical"] for s in vqa}) >= 10 and len({s["answer"]["text"] for s in vqa}) >= 20
    )
    docs = load_samples(full, "test", {"task_type": "vqa"})
    space = answer_space(docs)
    for d in docs:  # the random baseline's answers never depend on the evaluated targets
        d["answer"] = {"text": "x", "canonical": "x", "kind": d["answer"]["kind"]}
    assert answer_space(docs) == space and set(space) == {d["answer_kind"] for d in docs}
    scores = {}
    for model in ("oracle", "random"):
        out = run_in(tmp_path, ["rvtbench_vqa"], model, str(full), output_path=tmp_path / model)
        scores[model] = out.results["task_results"]["rvtbench_vqa"]["tables"]["by_category_level"]["overall"]
    assert scores["oracle"]["accuracy"] == 1.0 and scores["oracle"]["ROUGE-L"] == pytest.approx(1.0)
    assert scores["random"]["accuracy"] < 0.5 and scores["random"]["ROUGE-L"] < 0.3


def test_a_default_build_has_segmentation_even_with_small_objects(scenes, tmp_path):

    out = scenes.parent / "rules"
    harness_build("rvtbench", "--from-synthetic", str(scenes), "--out", str(out), "--seed", "1")
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["by_task_type"].get("segmentation", 0) > 0 and counts["segmentation_by_largest"] > 0
    assert counts["missing_task_types"] == {} and counts["vqa_by_interactions"] > 0
    # `random` over the whole group runs (every task has its answer space, none read from the targets).
    res = run_in(tmp_path, ["rvtbench"], "random", str(out)).results["task_results"]
    for task in ("rvtbench_seg", "rvtbench_grounding", "rvtbench_vqa", "rvtbench_summary"):
        assert res[task]["n_samples"] == counts["by_task_type"].get(
            task.split("_")[1].replace("seg", "segmentation"), 0
        )
