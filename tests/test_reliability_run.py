"""Reliability of whole runs: bad media of every kind, a hook that raises, determinism across processes."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import PLUGIN_PKG, harness_env, run_harness, run_in
from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.errors import StrictModeError
from harness.plugins.loading import load_plugins
from harness.results.lm_eval_keys import TIMING_KEYS
from harness.results.writer import read_samples

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


def _break_videos(videos):
    """Five broken videos, one per kind of damage; returns {file name: expected reason word}."""
    good = (videos / "test_000.mp4").read_bytes()
    (videos / "test_001.mp4").write_bytes(good[: len(good) // 2])  # truncated
    (videos / "test_002.mp4").write_bytes(b"")  # zero bytes
    (videos / "test_003.mp4").write_text("GIF89a this is an image, not a video\n" * 30)  # wrong extension
    at = good.find(b"avc1", good.find(b"stsd"))
    (videos / "test_004.mp4").write_bytes(good[:at] + b"zzzz" + good[at + 4 :])  # unsupported codec
    (videos / "test_005.mp4").unlink()  # missing
    return {
        "test_001.mp4": "truncated",
        "test_002.mp4": "empty",
        "test_003.mp4": "corrupt",
        "test_004.mp4": "unsupported_codec",
        "test_005.mp4": "not found",
    }


def test_bad_media_become_counted_errors_and_the_rest_is_scored(tmp_path, colors_root, with_plugin):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    expected = _break_videos(root / "colors" / "videos")
    out = run_in(tmp_path, ["colors_qa"], "oracle", root, load_plugins(), progress=False)
    res = out.results["task_results"]["colors_qa"]
    assert res["errors"] == {"media": 10} and res["n_scored"] == 14
    assert res["metrics"]["accuracy"] == {**res["metrics"]["accuracy"], "value": 1.0, "n": 14}
    errors = {
        r["doc"]["video"].split("/")[-1]: r["error"]["message"]
        for r in read_samples(out.samples_paths["colors_qa"])
        if r["error"]
    }
    assert set(errors) == set(expected)
    for name, reason in expected.items():
        assert name in errors[name] and reason in errors[name], errors[name]


def test_a_hook_raising_on_one_sample_scores_it_invalid_and_strict_stops(tmp_path, colors_root):
    folder = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, folder)
    hooks = folder / "hooks.py"
    hooks.write_text(
        hooks.read_text() + "\n\n_orig = parse\n\ndef parse(response, doc):\n"
        "    if doc['doc_id'] == 'test-3-dir':\n        raise KeyError('boom in a hook')\n"
        "    return _orig(response, doc)\n"
    )
    state = load_plugins(include_paths=[folder])
    cfg = RunConfig(
        tasks=["colors_qa"], model="oracle", data=colors_root, cache_dir=tmp_path / "c", progress=False
    )
    res = run(cfg, state).results["task_results"]["colors_qa"]
    # the answer the hook could not read is scored as the task's invalid answer (wrong), not dropped
    assert res["errors"] == {} and res["n_invalid"] == 1
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(23 / 24)
    cfg.strict = True
    with pytest.raises(StrictModeError, match="test-3-dir.*boom in a hook"):
        run(cfg, state)


def test_same_command_twice_is_byte_identical(tmp_path, colors_root, plugin_site):
    env = harness_env(plugin_site)
    outs = []
    for i in range(2):
        out = tmp_path / f"out{i}"
        r = run_harness(
            [
                "--tasks",
                "colors_all",
                "--model",
                "random",
                "--seed",
                "7",
                "--data",
                str(colors_root),
                "--output_path",
                str(out),
                "--log_samples",
                "--cache_dir",
                str(tmp_path / f"cache{i}"),
            ],
            env,
        )
        assert r.returncode == 0, r.stderr
        outs.append(out / "random")
    files = [sorted(p.iterdir()) for p in outs]
    assert [f.name.split("_20")[0] for f in files[0]] == [f.name.split("_20")[0] for f in files[1]]
    for a, b in zip(*files, strict=True):
        if a.name.startswith("samples_"):
            assert a.read_bytes() == b.read_bytes()
        else:
            ra, rb = json.loads(a.read_text()), json.loads(b.read_text())
            for r in (ra, rb):
                for key in ("created", *TIMING_KEYS):
                    r.pop(key)
                r["samples_files"] = {k: v.split("_20")[0] for k, v in r["samples_files"].items()}
                r["config"].pop("use_cache")  # lm-eval's key: the --cache_dir given, which differs here
            assert ra == rb


def _rows(root):
    return [json.loads(x) for x in (root / "colors" / "test.jsonl").read_text().splitlines()]


def _write_rows(root, rows, extra_lines=()):
    lines = [json.dumps(r) for r in rows] + list(extra_lines)
    (root / "colors" / "test.jsonl").write_text("\n".join(lines) + "\n")


# Malformed rows (invalid JSON lines, rows that are not mappings, duplicated ids, ...) are counted drops:
# tests/test_reliability_rows.py tries every kind in every built-in loader.


def test_a_malformed_row_is_a_counted_request_error(tmp_path, colors_root, with_plugin):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    rows = _rows(root)
    rows[0]["video"] = {"not": "a path"}
    rows[1]["video"] = "/absolute/video.mp4"
    _write_rows(root, rows)
    out = run_in(tmp_path, ["colors_qa"], "oracle", root, load_plugins(), progress=False)
    res = out.results["task_results"]["colors_qa"]
    assert res["n_errors"] == 2 and res["n_scored"] == 22
    msgs = [r["error"]["message"] for r in read_samples(out.samples_paths["colors_qa"]) if r["error"]]
    assert any("test-0-color" in m or "path" in m for m in msgs) and any("is absolute" in m for m in msgs)
