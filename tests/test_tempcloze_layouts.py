"""TempCloze data as the release and its code publish it: every documented layout read unchanged by
`--data`, and every bad reference (stem, item folder, clip, subset entry) one counted dropped row.

The fixture is the official layout made by test code: the builder's file-mode items with their clips.json
removed (the release has mp4 files only), `mixed_ids.json` and `subset_ids.json` in the public formats,
`fixed_permutations.json` as `subset/common.py` reads it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from harness.api import DroppedRow
from harness.cli.main import main
from harness_tasks.tempcloze.loader import load

BOM = "\ufeff"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """Three items in the release's file layout (no clips.json), with its three subset files at the root."""
    from harness_builders.tempcloze.config import BuildConfig
    from harness_builders.tempcloze.pipeline import build_dataset
    from harness_builders.tempcloze.synthetic import make_source_folder

    base = tmp_path_factory.mktemp("tc_official")
    make_source_folder(base / "videos", count=3, seconds=6.0, fps=10.0, seed=3)
    root = base / "release"
    build_dataset(base / "videos", root, BuildConfig(seed=0, mixed_size=None), progress=False)
    for clips in (root / "choices").glob("*/clips.json"):
        clips.unlink()
    (root / "manifest.json").unlink()
    stems = sorted(p.name for p in (root / "choices").iterdir())
    (root / "subset_ids.json").write_text(json.dumps(stems[:2], indent=2))
    fixed = [["S/Rand2.mp4", False], ["GT.mp4", True], ["S/Rand1.mp4", False], ["S/Rand3.mp4", False]]
    (root / "fixed_permutations.json").write_text(json.dumps({f"{stems[0]}|S": fixed}))
    return root


def _layout(release: Path, dest: Path, kind: str) -> Path:
    """The release rearranged as one documented layout; returns what --data is given."""
    files = {"mixed_ids.json": "mixed", "subset_ids.json": "subset", "fixed_permutations.json": "subset"}
    if kind == "hub":  # the hub dataset: everything at the root
        shutil.copytree(release, dest)
        return dest
    if kind == "data_root":  # rule 2: ROOT/tempcloze/ holding a release root
        shutil.copytree(release, dest / "tempcloze")
        return dest
    shutil.copytree(release / "choices", dest / "choices")
    # a clone of the code: choices/ at the root, the subset files in the newer TempCloze/ folder
    if kind == "repo":
        for name, sub in files.items():
            (dest / "TempCloze" / sub).mkdir(parents=True, exist_ok=True)
            shutil.copy(release / name, dest / "TempCloze" / sub / name)
        os.symlink("../choices", dest / "TempCloze" / "choices")  # as the official README links it
    elif kind == "code_folder":  # the code's TempCloze/ folder: mixed/ and subset/ beside choices/
        for name, sub in files.items():
            (dest / sub).mkdir(exist_ok=True)
            shutil.copy(release / name, dest / sub / name)
    return dest


def _run(data: Path, tmp_path: Path, tasks: str, model: str = "oracle") -> tuple[int, dict]:
    out = tmp_path / "out"
    code = main(["--tasks", tasks, "--model", model, "--data", str(data), "--output_path", str(out),
                 "--cache_dir", str(tmp_path / "cache")])  # fmt: skip
    paths = sorted((out / model).glob("results_*.json"))
    return code, json.loads(paths[-1].read_text()) if paths else {}


@pytest.mark.parametrize("kind", ["hub", "data_root", "repo", "code_folder"])
def test_every_documented_layout_runs_all_mixed_and_hard_unchanged(release, tmp_path, kind):
    data = _layout(release, tmp_path / "data", kind)
    code, results = _run(data, tmp_path, "tempcloze_all,tempcloze_mixed,tempcloze_hard")
    assert code == 0
    res = results["task_results"]
    assert res["tempcloze_all"]["n_samples"] == 9 and res["tempcloze_mixed"]["n_samples"] == 3
    assert res["tempcloze_hard"]["n_samples"] == 6
    assert all(r["n_dropped"] == 0 and r["metrics"]["accuracy"]["value"] == 1.0 for r in res.values())


def test_hard_reads_the_fixed_orders_where_the_code_keeps_them(release, tmp_path):
    data = _layout(release, tmp_path / "data", "repo")
    stem = json.loads((release / "subset_ids.json").read_text())[0]
    docs = {d["id"]: d for d in load(data, "test", {"subset": "hard"})}
    assert docs[f"{stem}|S"]["order_source"] == "fixed_permutations"
    assert docs[f"{stem}|S"]["options"] == ["S/Rand2", "GT", "S/Rand1", "S/Rand3"]
    assert docs[f"{stem}|S"]["clips"]["GT"]["path"] == f"choices/{stem}/GT.mp4"


def test_two_different_copies_of_a_subset_file_are_refused_naming_both(release, tmp_path, capsys):
    data = _layout(release, tmp_path / "data", "repo")
    shutil.copy(release / "subset_ids.json", data / "subset_ids.json")
    assert len([d for d in load(data, "test", {"subset": "hard"}) if isinstance(d, dict)]) == 6  # equal: fine
    (data / "subset_ids.json").write_text(json.dumps(["x"]))
    code, _ = _run(data, tmp_path, "tempcloze_hard")
    err = capsys.readouterr().err
    assert code == 2 and "exists in 2 places with different contents" in err
    assert str(data / "subset_ids.json") in err and str(data / "TempCloze/subset/subset_ids.json") in err


def test_a_root_without_items_names_what_was_looked_for_and_both_fixes(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, _ = _run(tmp_path / "empty", tmp_path, "tempcloze_all")
    err = capsys.readouterr().err
    assert code == 2 and "looked for choices, TempCloze/choices" in err and str(tmp_path / "empty") in err
    assert "harness build tempcloze" in err and "huggingface-cli download CedPei/TempCloze" in err


# ---- one bad reference, one counted row -----------------------------------------------------------------


def _reasons(docs: list) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in docs:
        if isinstance(d, DroppedRow):
            out[d.reason] = out.get(d.reason, 0) + 1
    return out


@pytest.mark.parametrize(
    "stem, reason",
    [("vid99", "unknown_stem"), (None, "invalid_stem"), ("../../../etc", "invalid_stem"), (7, "malformed_row"),
     ("", "invalid_stem"), ("..", "invalid_stem"), ("a/b", "invalid_stem")],
)  # fmt: skip
def test_a_bad_stem_in_subset_ids_drops_its_rows_and_the_rest_loads(release, tmp_path, stem, reason):
    data = _layout(release, tmp_path / "data", "hub")
    good = json.loads((release / "subset_ids.json").read_text())
    (data / "subset_ids.json").write_text(json.dumps([stem, *good]))
    docs = load(data, "test", {"subset": "hard"})
    assert _reasons(docs) == {reason: 3}  # one row per dimension the entry stands for
    assert len([d for d in docs if isinstance(d, dict)]) == 6
    detail = next(d.detail for d in docs if isinstance(d, DroppedRow))
    assert repr(stem) in detail or str(stem) in detail


@pytest.mark.parametrize(
    "stem, reason", [("vid99", "unknown_stem"), (None, "invalid_stem"), ("../../../etc", "invalid_stem")]
)
def test_a_bad_stem_in_mixed_ids_drops_one_row_and_the_rest_loads(release, tmp_path, stem, reason):
    data = _layout(release, tmp_path / "data", "hub")
    rows = json.loads((release / "mixed_ids.json").read_text())
    (data / "mixed_ids.json").write_text(json.dumps([{**rows[0], "stem": stem}, *rows]))
    docs = load(data, "test", {"subset": "mixed"})
    assert _reasons(docs) == {reason: 1} and len([d for d in docs if isinstance(d, dict)]) == 3


def test_mixed_picks_that_are_no_distractor_of_their_dimension_are_dropped(release, tmp_path):
    data = _layout(release, tmp_path / "data", "hub")
    rows = json.loads((release / "mixed_ids.json").read_text())
    bad = [{**rows[0], "S": "A/Early.mp4"}, {**rows[1], "A": "../../GT.mp4"}, {**rows[2], "P": "C/Loop9.mp4"}]
    (data / "mixed_ids.json").write_text(json.dumps(bad))
    assert _reasons(load(data, "test", {"subset": "mixed"})) == {"unknown_clip": 3}


def test_an_empty_item_folder_and_a_missing_clip_are_counted(release, tmp_path):
    data = _layout(release, tmp_path / "data", "hub")
    (data / "choices" / "empty_item").mkdir()
    stem = sorted(p.name for p in (release / "choices").iterdir())[1]
    (data / "choices" / stem / "A" / "Late.mp4").unlink()
    docs = load(data, "test", {})
    assert _reasons(docs) == {"empty_item": 3, "missing_clip": 1}
    kept = {d["id"] for d in docs if isinstance(d, dict)}
    assert f"{stem}|S" in kept and f"{stem}|P" in kept and f"{stem}|A" not in kept
    # with rotations every doc the unit would give is one dropped row
    assert _reasons(load(data, "test", {"rotations": [0, 1, 2, 3]})) == {"empty_item": 12, "missing_clip": 4}


def test_a_virtual_item_without_a_clip_or_with_a_broken_clips_json_is_dropped(tmp_path):
    from tempcloze_helpers import build_tempcloze

    root = build_tempcloze(tmp_path, 3, virtual=True) / "tempcloze"
    stems = sorted(p.name for p in (root / "choices").iterdir())
    doc = json.loads((root / "choices" / stems[0] / "clips.json").read_text())
    del doc["clips"]["C/Loop"]
    (root / "choices" / stems[0] / "clips.json").write_text(BOM + json.dumps(doc))
    (root / "choices" / stems[1] / "clips.json").write_text("{not json")
    docs = load(root, "test", {})
    assert _reasons(docs) == {"missing_clip": 1, "bad_item": 3}
    assert len([d for d in docs if isinstance(d, dict)]) == 5


def test_byte_order_marks_are_read_in_every_file_the_loader_reads(release, tmp_path):
    data = _layout(release, tmp_path / "data", "hub")
    stems = sorted(p.name for p in (data / "choices").iterdir())
    (data / "sources.json").write_text(json.dumps({s: "LVD-2M" for s in stems}))
    for name in ("mixed_ids.json", "subset_ids.json", "fixed_permutations.json", "sources.json"):
        (data / name).write_text(BOM + (data / name).read_text(), encoding="utf-8")
    hard = load(data, "test", {"subset": "hard"})
    assert len(hard) == 6 and hard[0]["order_source"] == "fixed_permutations"
    assert all(d["source"] == "LVD-2M" for d in hard)
    assert len(load(data, "test", {"subset": "mixed"})) == 3


def test_a_run_with_bad_references_scores_the_rest_and_counts_every_row(release, tmp_path):
    data = _layout(release, tmp_path / "data", "hub")
    good = json.loads((release / "subset_ids.json").read_text())
    (data / "subset_ids.json").write_text(json.dumps(["vid99", None, "../../../etc", *good]))
    rows = json.loads((release / "mixed_ids.json").read_text())
    (data / "mixed_ids.json").write_text(json.dumps([{**rows[0], "stem": "vid99"}, *rows]))
    (data / "choices" / "empty_item").mkdir()
    code, results = _run(data, tmp_path, "tempcloze_all,tempcloze_mixed,tempcloze_hard")
    assert code == 0
    res = results["task_results"]
    assert res["tempcloze_hard"]["dropped"] == {"invalid_stem": 6, "unknown_stem": 3}
    assert res["tempcloze_mixed"]["dropped"] == {"unknown_stem": 1}
    assert res["tempcloze_all"]["dropped"] == {"empty_item": 3}
    for r in res.values():
        assert r["n_scored"] + r["n_errors"] + r["n_dropped"] == r["n_rows"]
        assert r["metrics"]["accuracy"]["value"] == 1.0
    assert res["tempcloze_hard"]["n_rows"] == 15 and res["tempcloze_hard"]["n_scored"] == 6
