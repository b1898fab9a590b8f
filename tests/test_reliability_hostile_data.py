"""Every file a task reads stays inside the data root unless --allow_external_symlinks: a split file that is a
link out, a frame folder whose frames are links out, and a TempCloze virtual clip whose source is an absolute
path outside are refused by name (archives: tests/test_data_archives.py)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from harness.config.index import index_task_path
from harness.config.schema import parse_task_config
from harness.data.media import ALLOW_SYMLINKS_ENV, MediaPathError, confine_absolute, safe_media_path
from harness.data.task import Task
from harness.errors import DataError
from harness.frames.writer import write_video


@pytest.fixture(autouse=True)
def _not_allowed(monkeypatch):
    monkeypatch.delenv(ALLOW_SYMLINKS_ENV, raising=False)


def _task(tmp_path) -> Task:
    p = tmp_path / "tasks" / "t.yaml"
    p.parent.mkdir(parents=True)
    p.write_text("task: confined\nversion: 1\nprompt: {text: 'Q: {{ question }}'}\n")
    (entry,) = index_task_path(p)
    return Task(parse_task_config(entry.extra["config"], str(p)), p.parent)


def test_a_split_file_that_links_out_of_the_root_is_refused(tmp_path, monkeypatch):
    outside = tmp_path / "elsewhere" / "test.jsonl"
    outside.parent.mkdir()
    outside.write_text(json.dumps({"question": "secret row"}) + "\n")
    root = tmp_path / "data"
    root.mkdir()
    (root / "test.jsonl").symlink_to(outside)
    task = _task(tmp_path)
    with pytest.raises(
        DataError, match=r"split file 'test.jsonl' is a symlink to .*--allow_external_symlinks"
    ):
        task.load_docs(root, "test")
    monkeypatch.setenv(ALLOW_SYMLINKS_ENV, "1")
    assert [d["question"] for d in task.load_docs(root, "test")] == ["secret row"]


def test_a_split_file_linking_inside_the_root_is_read(tmp_path):
    root = tmp_path / "data"
    (root / "v1").mkdir(parents=True)
    (root / "v1" / "test.jsonl").write_text(json.dumps({"question": "q"}) + "\n")
    (root / "test.jsonl").symlink_to("v1/test.jsonl")
    assert [d["question"] for d in _task(tmp_path).load_docs(root, "test")] == ["q"]


def test_a_frame_folder_whose_frames_link_out_is_refused(tmp_path, monkeypatch):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "private.jpg").write_bytes(b"\xff\xd8 not really")
    frames = tmp_path / "data" / "videos" / "clip"
    frames.mkdir(parents=True)
    (frames / "00000.jpg").write_bytes(b"\xff\xd8 inside")
    (frames / "00001.jpg").symlink_to(outside / "private.jpg")
    (frames / "00002.jpg").symlink_to("00000.jpg")  # a link inside: fine
    checked: set[str] = set()
    for _ in range(2):  # also when the folder was seen before in the run
        with pytest.raises(MediaPathError, match=r"frame '00001.jpg' of the frame folder 'videos/clip'"):
            safe_media_path(tmp_path / "data", "videos/clip", "doc", checked)
    (frames / "00001.jpg").unlink()
    assert safe_media_path(tmp_path / "data", "videos/clip", "doc", checked) == frames.resolve()
    (frames / "00001.jpg").symlink_to(outside / "private.jpg")
    monkeypatch.setenv(ALLOW_SYMLINKS_ENV, "1")
    assert safe_media_path(tmp_path / "data", "videos/clip", "doc") == frames.resolve()


def test_an_absolute_path_a_hook_builds_must_lie_inside_the_root(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    inside, outside = root / "a.mp4", tmp_path / "b.mp4"
    for p in (inside, outside):
        write_video(p, [np.zeros((8, 8, 3), np.uint8)] * 2, fps=2)
    assert confine_absolute(root, str(inside), "doc") == str(inside)
    with pytest.raises(MediaPathError, match="outside the dataset folder"):
        confine_absolute(root, str(outside), "doc")
    monkeypatch.setenv(ALLOW_SYMLINKS_ENV, "1")
    assert confine_absolute(root, str(outside), "doc") == str(outside)


def test_a_tempcloze_virtual_clip_with_an_absolute_source_outside_is_a_media_error(tmp_path, with_plugin):
    from tempcloze_helpers import build_tempcloze, run_tasks, samples

    root = build_tempcloze(tmp_path / "b", 1, virtual=True) / "tempcloze"
    (item,) = sorted((root / "choices").iterdir())
    doc = json.loads((item / "clips.json").read_text())
    stolen = tmp_path / "outside.mp4"
    shutil.copy(root / doc["source"], stolen)
    doc["source"] = str(stolen)
    (item / "clips.json").write_text(json.dumps(doc))
    out = run_tasks(tmp_path, root, ["tempcloze_hard"], "oracle")
    rows = samples(out, "tempcloze_hard")
    assert rows and all(r["error"] and r["error"]["reason"] == "path_outside_root" for r in rows)
    assert all(str(stolen) in r["error"]["message"] for r in rows)
