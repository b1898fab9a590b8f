"""Media are checked before they are read: non-files, symlinks out of the dataset root, template includes.

Runs use the core's test plugin (colors) and its builder-made videos; each bad input must end as a counted
per-sample media error with its reason, the rest of the split scored, and nothing may hang or crash.
"""

from __future__ import annotations

import json
import os
import shutil
import stat

import numpy as np
import pytest

from conftest import PLUGIN_PKG, bind_unix_socket, harness_env, run_harness
from harness.api import media_identity
from harness.config.run import RunConfig
from harness.data.media import ALLOW_SYMLINKS_ENV, MediaPathError, VideoRef, safe_media_path
from harness.engine.runner import run
from harness.errors import ConfigError
from harness.frames import FrameSpec, MediaError, errors, folder, load_clip, probe
from harness.frames.folder import is_frame_folder
from harness.frames.probe import check_file
from harness.frames.synthetic import write_marker_video
from harness.plugins.loading import load_plugins
from harness.results.writer import read_samples

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


def _errors_by_video(out_dir) -> dict[str, dict]:
    (samples,) = out_dir.rglob("samples_colors_qa_*.jsonl")
    return {r["doc"]["video"].split("/")[-1]: r["error"] for r in read_samples(samples) if r["error"]}


def _non_files(videos, tmp_path) -> dict[str, str]:
    """Replace videos by things that are not video files; returns {file name: expected reason}."""
    expected = {}
    for name in ("test_001.mp4", "test_002.mp4", "test_003.mp4", "test_004.mp4"):
        (videos / name).unlink()
    (videos / "test_001.mp4").mkdir()  # a directory named like a video
    (videos / "test_001.mp4" / "notes.txt").write_text("not a frame\n")
    expected["test_001.mp4"] = "not_a_file"
    os.mkfifo(videos / "test_002.mp4")  # opening it would block forever
    expected["test_002.mp4"] = "not_a_file"
    bind_unix_socket(videos / "test_003.mp4")  # by its bare name: a long TMPDIR passes AF_UNIX's limit
    expected["test_003.mp4"] = "not_a_file"
    (videos / "test_004.mp4").symlink_to("/dev/null")  # a character device (needs the symlink opt-in)
    expected["test_004.mp4"] = "not_a_file"
    return expected


def test_directories_fifos_sockets_devices_are_not_a_file_and_nothing_hangs(tmp_path, colors_root, plugin_site):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    expected = _non_files(root / "colors" / "videos", tmp_path)
    args = ["--tasks", "colors_qa", "--model", "oracle", "--data", str(root), "--log_samples"]
    args += ["--output_path", str(tmp_path / "out"), "--cache_dir", str(tmp_path / "c"), "--no_progress"]
    proc = run_harness([*args, "--allow_external_symlinks"], harness_env(plugin_site), timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    (results,) = (tmp_path / "out").rglob("results_*.json")
    res = json.loads(results.read_text())["task_results"]["colors_qa"]
    assert res["errors"] == {"media": 8} and res["n_scored"] == 16  # two questions per video
    errors = _errors_by_video(tmp_path / "out")
    assert {k: e["reason"] for k, e in errors.items()} == expected
    assert "directory" in errors["test_001.mp4"]["message"] and "FIFO" in errors["test_002.mp4"]["message"]
    assert "socket" in errors["test_003.mp4"]["message"]
    assert "character device" in errors["test_004.mp4"]["message"]


def test_check_file_lets_a_frame_folder_through_and_stops_the_rest(tmp_path):
    frames = tmp_path / "clip"
    frames.mkdir()
    (frames / "00000.jpg").write_bytes(b"\xff\xd8 jpeg bytes")
    assert is_frame_folder(frames) and stat.S_ISDIR(check_file(frames).st_mode)
    assert len(media_identity(frames)) == 32  # a frame folder has a content identity too
    (tmp_path / "empty_dir.mp4").mkdir()
    os.mkfifo(tmp_path / "pipe.mp4")
    for bad in ("empty_dir.mp4", "pipe.mp4"):
        for call in (check_file, media_identity, lambda p: load_clip(VideoRef(path=str(p)), FrameSpec(count=4))):
            with pytest.raises(MediaError) as err:
                call(tmp_path / bad)
            assert err.value.reason == "not_a_file"


def test_any_oserror_reading_a_video_is_a_counted_media_error(tmp_path, colors_root, monkeypatch):
    import errno

    import av

    from harness.frames import content_hash as media_hash

    video = tmp_path / "v.mp4"
    shutil.copy(colors_root / "colors" / "videos" / "test_000.mp4", video)

    def eio(*_a, **_k):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(media_hash, "open", eio, raising=False)  # the content hash reads the bytes
    with pytest.raises(MediaError) as err:
        media_identity(video)
    assert err.value.reason == "unreadable" and "Input/output" in str(err.value)
    monkeypatch.setattr(av, "open", eio)  # the probe opens it through PyAV
    with pytest.raises(MediaError) as err:
        load_clip(VideoRef(path=str(video)), FrameSpec(count=4))
    assert err.value.reason == "unreadable"


def _run(tmp_path, root, name):
    cfg = RunConfig(
        tasks=["colors_qa"],
        model="oracle",
        data=root,
        output_path=tmp_path / name,
        log_samples=True,
        cache_dir=tmp_path / "c",
        progress=False,
    )
    return run(cfg, load_plugins()).results["task_results"]["colors_qa"]


def test_symlinks_out_of_the_root_need_the_opt_in(tmp_path, colors_root, with_plugin, monkeypatch):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    videos = root / "colors" / "videos"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.move(videos / "test_001.mp4", outside / "test_001.mp4")
    (videos / "test_001.mp4").symlink_to(outside / "test_001.mp4")  # points out of the root
    shutil.move(videos / "test_002.mp4", root / "colors" / "moved.mp4")
    (videos / "test_002.mp4").symlink_to("../moved.mp4")  # stays inside: always fine
    monkeypatch.delenv(ALLOW_SYMLINKS_ENV, raising=False)
    res = _run(tmp_path, root, "refused")
    assert res["errors"] == {"media": 2} and res["n_scored"] == 22
    (err,) = set(json.dumps(e, sort_keys=True) for e in _errors_by_video(tmp_path / "refused").values())
    err = json.loads(err)
    assert err["reason"] == "path_outside_root" and "--allow_external_symlinks" in err["message"]
    monkeypatch.setenv(ALLOW_SYMLINKS_ENV, "1")
    res = _run(tmp_path, root, "allowed")
    assert res["errors"] == {} or not any(res["errors"].values())
    assert res["n_scored"] == 24 and res["metrics"]["accuracy"]["value"] == 1.0


def test_row_paths_may_not_escape_lexically(tmp_path):
    (tmp_path / "videos").mkdir()
    assert safe_media_path(tmp_path, "videos/../a.mp4", "t") == (tmp_path / "a.mp4").resolve()
    for bad in ("../a.mp4", "videos/../../a.mp4", "/etc/passwd"):
        with pytest.raises(MediaPathError, match="escapes|absolute"):
            safe_media_path(tmp_path, bad, "t")


def test_a_folder_symlinked_out_of_the_root_is_refused_for_every_row(tmp_path):
    """Folders found to be real are checked once per run (`checked`); a symlinked one never joins them."""
    root = tmp_path / "data"
    (root / "videos").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "linked").symlink_to(outside, target_is_directory=True)
    checked: set[str] = set()
    for i in range(3):
        assert safe_media_path(root, f"videos/{i}.mp4", "t", checked) == root.resolve() / "videos" / f"{i}.mp4"
        with pytest.raises(MediaPathError, match="allow_external_symlinks"):
            safe_media_path(root, f"linked/{i}.mp4", "t", checked)
    assert checked == {str(root.resolve() / "videos")}


def test_template_include_never_follows_a_symlink_out_of_the_task_folder(tmp_path, colors_root):
    folder = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, folder)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE\n")
    (folder / "footer.jinja").symlink_to(secret)
    (folder / "inside.jinja").write_text("inside ok")
    (folder / "inside_link.jinja").symlink_to(folder / "inside.jinja")
    prompt = folder / "prompt.jinja"
    original = prompt.read_text()
    prompt.write_text(original + '{% include "inside_link.jinja" %}')
    state = load_plugins(include_paths=[folder])
    from harness.engine.runner import build_task

    task = build_task(state, "colors_qa")
    doc = {"doc_id": "1", "question": "q?", "video": "videos/test_000.mp4"}
    assert task.render_prompt(doc).endswith("inside ok")  # a link inside the folder is fine
    prompt.write_text(original + '{% include "footer.jinja" %}')
    task = build_task(load_plugins(include_paths=[folder]), "colors_qa")
    from harness.data import templates

    templates._environment.cache_clear()
    with pytest.raises(ConfigError, match="outside the task folder") as err:
        task.render_prompt(doc)
    assert "TOP-SECRET" not in str(err.value)


def test_a_frame_folder_counts_once_per_image_change(tmp_path):
    frames = tmp_path / "clip"
    frames.mkdir()
    for i in range(3):
        (frames / f"{i:05d}.png").write_bytes(np.full(8, i, np.uint8).tobytes())
    first = media_identity(frames)
    (frames / "00001.png").write_bytes(b"changed bytes")
    assert media_identity(frames) != first


def test_frames_over_the_side_limit_are_too_large_before_any_decode(tmp_path, monkeypatch):
    """A file whose stream claims frames over MAX_FRAME_SIDE (16384) pixels a side is a counted `too_large`
    media error, refused at the probe: decoding it would take gigabytes per frame. The limit is lowered here so
    a small video stands for a huge one."""
    video = write_marker_video(tmp_path / "wide.mp4", 4, 160, 90, fps=10)
    monkeypatch.setattr(probe, "MAX_FRAME_SIDE", 100)
    monkeypatch.setattr(folder, "MAX_FRAME_SIDE", 100)
    with pytest.raises(MediaError) as caught:
        load_clip(VideoRef(path=str(video)), FrameSpec(count=2))
    assert caught.value.reason == "too_large" and "160x90 frames" in str(caught.value)
    assert "too_large" in errors.REASONS and "downscale" in str(caught.value)
