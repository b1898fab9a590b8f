"""TempCloze-Hard from samples and results files, and the diagnostics (edge-frame check, edge baseline)."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest
from hostile_results import good_results

from harness_builders.tempcloze.commands import TempClozeDiagnoseBuilder, TempClozeHardBuilder
from harness_builders.tempcloze.config import BuildConfig
from harness_builders.tempcloze.diagnose import edge_baseline, edge_frame_check, linear_probabilities
from harness_builders.tempcloze.hard import hard_subset, tally
from harness_builders.tempcloze.pipeline import build_dataset
from harness_builders.tempcloze.synthetic import make_source_folder


def _samples(path: Path, wrong: set[tuple[str, str]], stems=("s1", "s2", "s3", "s4"), extra=()) -> Path:
    lines = []
    for i, stem in enumerate(stems):
        for dim in ("S", "A", "P"):
            acc = 0 if (stem, dim) in wrong else 1
            lines.append(
                {
                    "doc_id": f"{stem}:{dim}",
                    "doc": {"stem": stem, "dimension": dim},
                    "scores": {"accuracy": acc},
                    "i": i,
                }
            )
    lines.extend(extra)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.fixture()
def runs(tmp_path) -> list[Path]:
    m1 = _samples(tmp_path / "samples_tempcloze_m1.jsonl", {("s3", "A"), ("s2", "A"), ("s2", "P")})
    m2 = _samples(tmp_path / "samples_tempcloze_m2.jsonl", {("s3", "A"), ("s2", "S")})
    other = {"doc_id": "q", "doc": {"question": "?"}, "scores": {"accuracy": 0}}  # another benchmark's sample
    (tmp_path / "run3").mkdir()
    _samples(tmp_path / "run3" / "samples_tempcloze_m3.jsonl", {("s3", "S"), ("s1", "A")}, extra=[other])
    res = tmp_path / "run3" / "results_2026.json"  # a results file naming its samples file (beside it)
    res.write_text(json.dumps({**good_results(), "samples_files": {"tempcloze": "samples_tempcloze_m3.jsonl"}}))
    return [m1, m2, res]


def test_hard_subset_ranks_items_most_runs_got_wrong(runs):
    # s3: wrong in all three runs; s2: two runs (3 answers); s1: one run; s4: never
    assert hard_subset(runs, top=3) == ["s3", "s2", "s1"]
    assert hard_subset(runs, top=150) == ["s3", "s2", "s1", "s4"]
    items = hard_subset(runs, top=2, unit="item")
    # (s3, A) was missed by two runs; the one-run items tie and are ordered by key
    assert items == [{"stem": "s3", "dimension": "A"}, {"stem": "s1", "dimension": "A"}]
    t = {x.key: x for x in tally(runs)}
    assert t[("s2",)].wrong == 3 and t[("s2",)].total == 9


def test_hard_command_writes_subset_ids(runs, tmp_path):
    b = TempClozeHardBuilder()
    p = argparse.ArgumentParser()
    b.add_arguments(p)
    out = tmp_path / "subset_ids.json"
    assert b.run(p.parse_args(["--results", *map(str, runs), "--top", "2", "--out", str(out)])) == 0
    assert json.loads(out.read_text()) == ["s3", "s2"]


def test_hard_subset_errors_name_the_file(tmp_path):
    bad = tmp_path / "samples_x.jsonl"
    bad.write_text('{"doc": {"stem": "a"}, "scores": {}}\n')
    with pytest.raises(ValueError, match=r"samples_x.jsonl:1: .*accuracy"):
        hard_subset([bad])
    res = tmp_path / "results_x.json"
    res.write_text("{}")
    with pytest.raises(ValueError, match="results_x.json: field 'model'"):  # the harness's results reader
        hard_subset([res])
    res.write_text(json.dumps({**good_results(), "samples_files": {}}))
    with pytest.raises(ValueError, match="samples_files"):
        hard_subset([res])
    res.write_text(json.dumps({**good_results(), "samples_files": {"t": "../samples_x.jsonl"}}))
    with pytest.raises(ValueError, match="samples_files.t"):  # a path outside the results file's folder
        hard_subset([res])
    none = tmp_path / "samples_y.jsonl"
    none.write_text('{"doc": {"q": 1}, "scores": {"accuracy": 1}}\n')
    with pytest.raises(ValueError, match="no TempCloze samples"):
        hard_subset([none])


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tc_diag")
    make_source_folder(root / "src", count=3, seconds=6.0, fps=10.0, seed=2)
    build_dataset(root / "src", root / "data", BuildConfig(virtual=True, seed=1), progress=False)
    return root / "data"


def test_edge_frame_check_clean_dataset_has_no_match(dataset):
    report = edge_frame_check(dataset)
    assert report["overall"]["clips"] == 3 * 12 and report["overall"]["matches"] == 0


def test_edge_frame_check_finds_planted_matches(dataset, tmp_path):
    planted = tmp_path / "planted"
    shutil.copytree(dataset, planted)
    for item in (planted / "choices").glob("*/clips.json"):  # the copy points at the original sources
        d = json.loads(item.read_text())
        d["source"] = str((dataset / d["source"]).resolve())
        item.write_text(json.dumps(d))
    clips = planted / "choices" / "vid01" / "clips.json"
    doc = json.loads(clips.read_text())
    a, b = doc["gap"]["start"], doc["gap"]["end"]
    # S/Rand2 now starts on before's last frame; C/Loop now ends on after's first frame
    doc["clips"]["S/Rand2"] = [{"start": a - 1, "end": a - 1 + (b - a), "unit": "frame"}]
    doc["clips"]["C/Loop"] = doc["clips"]["C/Loop"] + [{"start": b, "end": b + 1, "unit": "frame"}]
    clips.write_text(json.dumps(doc))
    report = edge_frame_check(planted)
    assert report["overall"]["matches"] == 2 and report["overall"]["clips"] == 36
    assert report["per_dimension"]["S"]["start_matches"] == 1
    assert report["per_dimension"]["P"]["end_matches"] == 1
    assert {(m["stem"], m["clip"]) for m in report["matches"]} == {("vid01", "S/Rand2"), ("vid01", "C/Loop")}

    cmd = TempClozeDiagnoseBuilder()
    p = argparse.ArgumentParser()
    cmd.add_arguments(p)
    out = tmp_path / "diag.json"
    assert cmd.run(p.parse_args([str(planted), "--out", str(out), "--strict"])) == 1
    assert json.loads(out.read_text())["edge_frame_check"]["overall"]["matches"] == 2
    assert cmd.run(p.parse_args([str(dataset)])) == 0


def test_edge_baseline_probabilities(dataset):
    report = edge_baseline(dataset)
    assert set(report) == {"Semantic", "Alignment", "Progression"}
    for row in report.values():
        assert row["questions"] == 3
        assert 0.0 <= row["mean_gt_probability"] <= 1.0 and 0.0 <= row["top1_accuracy"] <= 1.0


def test_linear_probabilities():
    assert linear_probabilities([1.0, 1.0, 2.0, 0.0]).tolist() == [0.25, 0.25, 0.5, 0.0]
    assert linear_probabilities([-1.0, 1.0, 1.0, 1.0]).tolist() == [0.0, 1 / 3, 1 / 3, 1 / 3]
    assert linear_probabilities([0.0, 0.0, 0.0, 0.0]).tolist() == [0.25] * 4


def test_hard_subset_counts_an_invalid_answer_as_wrong(tmp_path):
    # the TempCloze task scores an unparsable answer's accuracy as None (accuracy_strict 0)
    lines = [
        {"doc_id": "s1:S", "doc": {"stem": "s1", "dimension": "S"}, "scores": {"accuracy": None}},
        {"doc_id": "s2:S", "doc": {"stem": "s2", "dimension": "S"}, "scores": {"accuracy": 1.0}},
    ]
    path = tmp_path / "samples_tempcloze_x.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert hard_subset([path], top=1) == ["s1"]
