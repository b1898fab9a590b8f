"""The README tour's TempCloze steps, offline on a fresh clone: build from videos the project makes itself
(`--synthetic N`, or the CycliST build's videos with the stated thresholds), the release layout `--data`
reads as it is, and the documented way to TempCloze-Hard (derived from runs of tempcloze_all)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main


def _run(tasks: str, model: str, data: Path, tmp_path: Path) -> dict:
    out = tmp_path / "out"
    code = main(["--tasks", tasks, "--model", model, "--data", str(data), "--output_path", str(out),
                 "--log_samples", "--cache_dir", str(tmp_path / "cache")])  # fmt: skip
    assert code == 0
    return json.loads(sorted((out / model).glob("results_*.json"))[-1].read_text())


def test_synthetic_build_runs_all_then_hard_derived_from_the_runs(tmp_path, capsys):
    data = tmp_path / "data"
    code = main(["build", "tempcloze", "--synthetic", "4", "--out", str(data / "tempcloze"), "--virtual",
                 "--no_progress"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0 and "4 of 4 videos kept" in printed and "build tempcloze-hard --results" in printed
    root = data / "tempcloze"
    # the release layout (choices/, mixed_ids.json) plus what the release has no place for (documented)
    assert sorted(p.name for p in root.iterdir()) == ["choices", "manifest.json", "mixed_ids.json", "sources"]
    assert len(list((root / "sources").iterdir())) == 4 and list(data.iterdir()) == [root]  # no temp left
    assert json.loads((root / "manifest.json").read_text())["sources"] == {"synthetic": 4}
    for model in ("oracle", "random"):
        assert _run("tempcloze_all", model, data, tmp_path)["task_results"]["tempcloze_all"]["n_samples"] == 12
    code = main(
        ["build", "tempcloze-hard", "--results", str(tmp_path / "out"), "--top", "2", "--out", str(root)]
    )
    assert code == 0 and len(json.loads((root / "subset_ids.json").read_text())) == 2
    hard = _run("tempcloze_hard", "oracle", data, tmp_path)["task_results"]["tempcloze_hard"]
    assert hard["n_samples"] == 6 and hard["metrics"]["accuracy"]["value"] == 1.0


def test_the_cyclist_builds_videos_pass_with_the_stated_thresholds(tmp_path, capsys):
    cyclist = tmp_path / "data" / "cyclist"
    argv = ["build", "cyclist", "--tier", "L1", "--split", "test", "--num-scenes", "2", "--out", str(cyclist)]
    assert main(argv) == 0
    assert list((cyclist / "videos").rglob("*.mp4"))  # videos/ (or videos/<tier>/<split>/, kind first)
    build = ["build", "tempcloze", "--videos", str(cyclist / "videos"), "--virtual", "--no_progress"]
    capsys.readouterr()
    assert main([*build, "--out", str(tmp_path / "rejected")]) == 2  # the paper's natural-footage thresholds
    assert "--min-sharpness 0 --min-motion 0" in capsys.readouterr().err
    out = tmp_path / "data" / "tempcloze"
    assert main([*build, "--out", str(out), "--min-sharpness", "0", "--min-motion", "0"]) == 0
    assert "2 of 2 videos kept" in capsys.readouterr().out
    res = _run("tempcloze_all", "oracle", tmp_path / "data", tmp_path)["task_results"]["tempcloze_all"]
    assert res["n_samples"] == 6 and res["metrics"]["accuracy"]["value"] == 1.0


@pytest.mark.parametrize(
    ("flags", "why"),
    [
        (["--min-duration", "nan"], "--min-duration nan: must be a number at least 0"),  # before: exit 0
        (["--pairs-per-second", "0"], "--pairs-per-second 0.0: must be above 0"),  # before: ZeroDivisionError
        (["--mixed-size", "-1"], "--mixed-size -1: must be a number at least 1 (0: every video)"),
        (["--flow-height", "0"], "--flow-height 0: must be a number between 16 and 4320"),  # before: 'unreadable'
        (["--crf", "999"], "--crf 999: must be a number between 0 and 51"),
        (["--max-duration", "1"], "--max-duration 1.0: below --min-duration 4.0"),
    ],
)
def test_build_flags_no_build_can_use_are_one_line_errors(tmp_path, capsys, flags, why):
    out = tmp_path / "data" / "tempcloze"
    code = main(["build", "tempcloze", "--synthetic", "2", "--out", str(out), "--virtual", "--no_progress", *flags])
    err = capsys.readouterr().err
    assert code == 2 and why in err and "Traceback" not in err, err
    assert not out.exists(), "refused before anything is written"
