"""A task folder and dataset made by someone careless or hostile never hang, crash or score a run: a FIFO
named like a split, a YAML or an include is refused by name (before, each hung the run until it was killed); a
frame count of a billion is refused when the YAML is read (before: the run built a billion positions); an fps
rate far above the video's takes every frame at once (before: a loop of rate / fps turns per frame); an
empty `metrics:` list is exit 2 naming the field (before: an IndexError traceback after every model call)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import PLUGIN_PKG, harness_env, run_harness
from harness.data.run_context import MAX_ROW_DEPTH, checked_rows
from harness.frames.sampler import fps_positions
from harness.results.reading import check_tree
from harness_builders.cyclist.questions.generate import read_scene_file
from harness_builders.cyclist.questions.templates import TemplateError, load_template_file
from harness_builders.tempcloze.virtual import load_item_document

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


def _setup(tmp_path: Path, colors_root: Path, yaml_edit=lambda y: y) -> tuple[Path, Path]:
    """A copy of the colors task as `fz_qa` (no group, no variants) and a copy of its data root."""
    folder = tmp_path / "tasks"
    folder.mkdir(parents=True)
    for name in ("hooks.py", "prompt.jinja"):
        shutil.copy(TASKS_DIR / name, folder / name)
    text = (TASKS_DIR / "colors.yaml").read_text().split("variants:")[0]
    text = text.replace("task: colors_qa", "task: fz_qa").replace("groups: [colors]\n", "")
    (folder / "fz.yaml").write_text(yaml_edit(text))
    data = tmp_path / "data"
    shutil.copytree(colors_root, data)
    return folder, data


def _run(tmp_path: Path, folder: Path, data: Path):
    args = ["--include_path", str(folder), "--tasks", "fz_qa", "--model", "oracle", "--data", str(data),
            "--cache_dir", str(tmp_path / "cache"), "--no_progress"]  # fmt: skip
    return run_harness(args, harness_env(), timeout=120)  # a hang fails the test (TimeoutExpired)


def _one_line_error(proc, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")][-1]
    for word in words:
        assert word in line, line


@pytest.mark.parametrize("name", ["test.jsonl", "test.json"])
def test_a_fifo_split_file_is_refused_by_name(tmp_path, colors_root, name):
    folder, data = _setup(tmp_path, colors_root)
    (data / "colors" / "test.jsonl").unlink()
    os.mkfifo(data / "colors" / name)
    _one_line_error(_run(tmp_path, folder, data), name, "not a regular file", "fz_qa")


def test_a_fifo_include_is_refused_and_a_fifo_yaml_beside_a_task_is_skipped_by_name(tmp_path, colors_root):
    folder, data = _setup(tmp_path, colors_root)
    os.mkfifo(folder / "other.yaml")
    beside = _run(tmp_path, folder, data)
    assert beside.returncode == 0, beside.stderr
    assert "other.yaml: not a regular file" in beside.stderr
    folder2, _ = _setup(tmp_path / "b", colors_root, lambda y: y + "include: inc.yaml\n")
    os.mkfifo(folder2 / "inc.yaml")
    included = _run(tmp_path, folder2, data)
    assert included.returncode == 2 and "inc.yaml: not a regular file" in included.stderr, included.stderr


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda y: y.replace("count: 8", "count: 1000000000"), "frames.count"),
        (lambda y: y.replace("count: 8", "count: 8\n  max_frames: 1000000000"), "frames.max_frames"),
        (lambda y: y.replace("strategy: uniform\n  count: 8", "strategy: fps\n  rate: .inf"), "frames.rate"),
        (
            lambda y: y.replace("metrics:\n  - name: accuracy\n    headline: true\n", "metrics: []\n"),
            "metrics",
        ),
        # before: accepted, and every request to a served model carried a body no server takes
        (lambda y: y.replace("temperature: 0", "temperature: .nan"), "generation"),
        (lambda y: y.replace("max_new_tokens: 8", "max_new_tokens: 1000000000000"), "generation"),
    ],
)
def test_unbounded_frame_specs_and_no_metrics_are_refused_naming_the_field(
    tmp_path, colors_root, edit, field
):
    folder, data = _setup(tmp_path, colors_root, edit)
    _one_line_error(_run(tmp_path, folder, data), "fz.yaml", f"'{field}'")


def test_an_fps_rate_far_above_the_videos_takes_every_frame(tmp_path, colors_root):
    assert fps_positions(50, 25.0, 1e9) == list(range(50)) == fps_positions(50, 25.0, 25.0)
    assert fps_positions(50, 25.0, 12.5) == list(range(0, 50, 2))
    folder, data = _setup(
        tmp_path,
        colors_root,
        lambda y: y.replace("strategy: uniform\n  count: 8", "strategy: fps\n  rate: 1000000000"),
    )
    proc = _run(tmp_path, folder, data)
    assert proc.returncode == 0, proc.stderr


def test_builders_refuse_a_fifo_where_they_read_json(tmp_path):
    """The builders read scene, template and clip-list files from folders a user names: a FIFO there is refused
    by name (before: each blocked the build forever)."""
    fifo = tmp_path / "scene_config.json"
    os.mkfifo(fifo)
    ((name, problem),) = list(read_scene_file(fifo))
    assert name == fifo.name and "not a regular file" in str(problem)
    with pytest.raises(ValueError, match="not a regular file"):
        load_item_document(fifo)
    with pytest.raises(TemplateError, match="not a regular file"):
        load_template_file(fifo)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("temperature=NaN", "--gen_kwargs temperature=nan: not a finite number"),
        ("max_new_tokens=1e12", "must be a whole number between 1 and 1000000"),
        ("top_p=1.5", "--gen_kwargs top_p=1.5: must be a number between 0 and 1"),
    ],
)
def test_gen_kwargs_no_request_can_carry_are_refused_before_the_run(tmp_path, colors_root, value, why):
    folder, data = _setup(tmp_path, colors_root)
    args = ["--include_path", str(folder), "--tasks", "fz_qa", "--model", "oracle", "--data", str(data),
            "--cache_dir", str(tmp_path / "cache"), "--no_progress", "--gen_kwargs", value]  # fmt: skip
    proc = run_harness(args, harness_env(), timeout=120)
    assert proc.returncode == 2 and why in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_rows_nested_too_deeply_are_dropped_with_a_reason(tmp_path, colors_root):
    """A JSON Lines row 200,000 levels deep was a RecursionError traceback; one 500 deep loaded, to fail in a
    later step. Both are dropped rows now, counted by reason, and the other rows run."""
    folder, data = _setup(tmp_path, colors_root)
    split = data / "colors" / "test.jsonl"
    deep: object = None
    for _ in range(500):
        deep = [deep]
    row = {"id": "deep", "video": "videos/test_000.mp4", "family": "color", "answer": "red", "extra": deep}
    split.write_text("[" * 200_000 + "]" * 200_000 + "\n" + json.dumps(row) + "\n" + split.read_text())
    args = ["--include_path", str(folder), "--tasks", "fz_qa", "--model", "oracle", "--data", str(data),
            "--cache_dir", str(tmp_path / "cache"), "--output_path", str(tmp_path / "out"), "--no_progress"]  # fmt: skip
    proc = run_harness(args, harness_env(), timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    (results,) = (tmp_path / "out").rglob("results_*.json")
    task = json.loads(results.read_text())["task_results"]["fz_qa"]
    assert task["dropped"] == {"invalid_json": 1, "too_deep": 1} and task["n_samples"] == 24


def test_a_row_at_the_depth_limit_is_kept_and_its_samples_line_reads_back():
    """The row limit is the samples reader's limit less the one level a row is logged under (`doc`): before, a
    row 64 deep loaded, and the samples file it was logged in was refused by the harness's own reader."""
    def row(depth: int) -> dict:
        value: object = "x"
        for _ in range(depth - 1):
            value = [value]
        return {"id": f"d{depth}", "x": value}

    kept, dropped = checked_rows([row(MAX_ROW_DEPTH), row(MAX_ROW_DEPTH + 1)], "test", "t", "id")
    assert [d["doc_id"] for d in kept] == [f"d{MAX_ROW_DEPTH}"] and [d["reason"] for d in dropped] == ["too_deep"]
    check_tree({"doc": kept[0], "target": None}, "samples line")  # raises when the reader would refuse it
