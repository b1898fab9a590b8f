"""Clean failures: builder and CLI errors are one message with a fix, never a traceback; a full disk on the
output folder names the path and leaves no temporary file."""

from __future__ import annotations

import builtins
import errno

import pytest

from conftest import harness_env, run_harness
from harness import files as files_module
from harness.cli.main import main
from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.errors import OutputError
from harness.plugins.loading import load_plugins


def _clean(proc, code: int, *words: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


def test_build_tempcloze_with_nothing_usable_is_a_message(tmp_path):
    videos = tmp_path / "videos"
    videos.mkdir()
    env = harness_env()
    args = ["build", "tempcloze", "--videos", str(videos), "--no_progress"]
    proc = run_harness([*args, "--out", str(tmp_path / "a")], env, timeout=120)
    _clean(proc, 2, "error: build tempcloze: no video files in", "point --videos at a folder of videos")
    (videos / "clip.mp4").write_text("not a video\n")
    proc = run_harness([*args, "--out", str(tmp_path / "b")], env, timeout=120)
    _clean(proc, 2, "no usable video", "unreadable: 1", str(tmp_path / "b" / "manifest.json"))


def test_cli_path_mistakes_are_messages(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    env = harness_env()
    proc = run_harness(["--rescore", str(tmp_path / "missing.jsonl")], env, timeout=120)
    _clean(proc, 2, "missing.jsonl: No such file or directory; check that the path exists")
    proc = run_harness(["demo", "--out", str(a_file / "sub")], env, timeout=120)
    _clean(proc, 2, "Not a directory", "a part of the path is a file")


class _FullDisk:
    """open() for the output folder whose writes fail half way with ENOSPC, like a full disk."""

    def __init__(self, folder):
        self.folder = str(folder)
        self.real = builtins.open

    def __call__(self, file, mode="r", *a, **k):
        f = self.real(file, mode, *a, **k)
        if str(file).startswith(self.folder) and "w" in mode:
            real_write = f.write

            def write(text):
                real_write(text[: len(text) // 2])
                f.flush()
                raise OSError(errno.ENOSPC, "No space left on device")

            f.write = write
        return f


def test_a_full_output_disk_names_the_path_and_leaves_no_temp_file(tmp_path, colors_root, with_plugin, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setattr(files_module, "open", _FullDisk(out), raising=False)
    cfg = RunConfig(
        tasks=["colors_qa"],
        model="oracle",
        data=colors_root,
        output_path=out,
        log_samples=True,
        cache_dir=tmp_path / "c",
        progress=False,
    )
    with pytest.raises(OutputError) as err:
        run(cfg, load_plugins())
    msg = str(err.value)
    assert str(out) in msg and "No space left on device" in msg and "free space" in msg
    assert [p.name for p in out.rglob("*") if p.is_file()] == []  # no .tmp, no half file


def test_a_full_output_disk_on_the_command_line(tmp_path, colors_root, with_plugin, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setattr(files_module, "open", _FullDisk(out), raising=False)
    args = ["--tasks", "colors_qa", "--model", "oracle", "--data", str(colors_root), "--no_progress"]
    code = main([*args, "--output_path", str(out), "--cache_dir", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 3 and err.startswith("error: cannot write ") and str(out) in err, err
    assert "Traceback" not in err and not [p for p in out.rglob("*") if p.is_file()]


@pytest.mark.parametrize(
    "line, problem",
    [
        ('{"task": "colors_qa", "doc": {', "not a JSON line"),  # a write cut short
        ('["colors_qa"]', "a JSON list, not a sample record"),
        ('{"doc_id": "7"}', "the record has no task, doc, target"),
    ],
)
def test_rescore_of_a_damaged_samples_file_names_the_file_and_line(tmp_path, capsys, line, problem):
    samples = tmp_path / "samples_colors_qa_x.jsonl"
    good = '{"task": "colors_qa", "doc": {"doc_id": "1"}, "target": "red", "raw": "red", "error": null}'
    samples.write_text(f"{good}\n\n{line}\n", encoding="utf-8")
    code = main(["--rescore", str(samples), "--output_path", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert f"{samples}:3: {problem}" in err and "--log_samples" in err, err
