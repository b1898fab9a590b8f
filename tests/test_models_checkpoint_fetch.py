"""A checkpoint that cannot be fetched ends the run in one line with exit 3 (docs/cli.md), naming the checkpoint,
the cause actually seen and `pretrained=/path`, without huggingface_hub's retry loop; a checkpoint in a folder,
or in the HF cache while the hub is down, loads. The headline preset against a stand-in hub on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest
from hub_helpers import hub_env
from servers.hf_hub import StandInHub, closed_port_endpoint, folder_files, silent_endpoint

from conftest import run_harness

CHECKPOINT = "llava-hf/LLaVA-Video-7B-Qwen2-hf"  # llava_video_7b's default


def _run(tmp_path: Path, colors_root: Path, env: dict[str, str], *model_args: str):
    args = ["--tasks", "colors_qa", "--include_path", str(Path(__file__).parent / "plugin_pkg/harness_colors/tasks"),
            "--data", str(colors_root), "--model", "llava_video_7b", "--limit", "1", "--no_progress",
            "--cache_dir", str(tmp_path / "cache"), "--model_args", ",".join(["device_map=cpu", *model_args])]  # fmt: skip
    return run_harness(args, env, timeout=300)


def _one_error_line(proc) -> str:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr  # no retry warnings, no traceback
    assert lines[0].startswith(f"error: model 'llava_video_7b': cannot load checkpoint '{CHECKPOINT}'")
    assert "pretrained=" in lines[0]
    return lines[0]


def test_unreachable_hub_is_exit_3_in_one_line(tmp_path, colors_root):
    proc = _run(tmp_path, colors_root, hub_env(tmp_path, closed_port_endpoint()))
    assert proc.returncode == 3
    line = _one_error_line(proc)
    assert "unreachable (ConnectError: [Errno 111] Connection refused)" in line
    assert f"hf download {CHECKPOINT} --local-dir DIR" in line and "HF_HUB_OFFLINE" not in line


def test_a_hub_that_never_answers_is_exit_3_after_the_timeout(tmp_path, colors_root):
    with silent_endpoint() as endpoint:
        proc = _run(tmp_path, colors_root, hub_env(tmp_path, endpoint, HARNESS_HUB_TIMEOUT="1"))
    assert proc.returncode == 3 and "Timeout" in _one_error_line(proc)


def test_offline_without_a_cached_copy_says_so(tmp_path, colors_root):
    with StandInHub() as hub:
        proc = _run(tmp_path, colors_root, hub_env(tmp_path, hub.endpoint, offline=True))
        assert not hub.requests
    assert proc.returncode == 3 and "HF_HUB_OFFLINE=1 is set" in _one_error_line(proc)


def test_a_checkpoint_the_hub_does_not_have_is_named(tmp_path, colors_root):
    with StandInHub() as hub:
        proc = _run(tmp_path, colors_root, hub_env(tmp_path, hub.endpoint))
    assert proc.returncode == 3 and "the hub has no model" in _one_error_line(proc)


def test_a_missing_folder_is_not_taken_for_a_hub_id(tmp_path, colors_root):
    proc = _run(tmp_path, colors_root, hub_env(tmp_path, "http://127.0.0.1:9"), f"pretrained={tmp_path}/nope")
    assert proc.returncode == 3
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "no such folder" in lines[0] and "pretrained=/path/to/folder" in lines[0]


hf = pytest.mark.hf


@pytest.fixture(scope="module")
def tiny(request) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tiny_checkpoints import checkpoint

    return checkpoint("llava_onevision")


@hf
def test_a_checkpoint_folder_loads_without_asking_the_hub(tiny, monkeypatch):
    from harness.data import hub as hub_module
    from harness.engine.runner import load_model
    from harness.plugins.loading import load_plugins

    monkeypatch.setattr(
        hub_module, "resolve_commit", lambda *a, **k: pytest.fail("asked the hub for a folder")
    )
    model = load_model(load_plugins([]), "llava_video_7b", {"pretrained": str(tiny), "device_map": "cpu"})
    try:
        assert model.identity()["args"]["pretrained"] == str(tiny) and model.model is not None
    finally:
        model.close()


@hf
def test_a_cached_checkpoint_loads_while_the_hub_is_down(tmp_path, colors_root, tiny, monkeypatch):
    from huggingface_hub import constants, snapshot_download

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with StandInHub() as hub:  # the HF cache as an earlier online run leaves it
        hub.add_commit(CHECKPOINT, folder_files(tiny), repo_type="model")
        snapshot_download(CHECKPOINT, endpoint=hub.endpoint, cache_dir=tmp_path / "hf" / "hub")
    proc = _run(tmp_path, colors_root, hub_env(tmp_path, hub.endpoint))
    assert proc.returncode == 0, proc.stderr
    notes = [ln for ln in proc.stderr.splitlines() if "WARNING" in ln]
    assert len(notes) == 1 and "loading the copy" in notes[0] and "unreachable" in notes[0]


@hf
@pytest.mark.slow
def test_the_headline_preset_downloads_through_transformers_then_runs_from_the_cache(
    tmp_path, colors_root, tiny
):
    with StandInHub() as hub:
        hub.add_commit(CHECKPOINT, folder_files(tiny), repo_type="model")
        proc = _run(tmp_path, colors_root, hub_env(tmp_path, hub.endpoint))
        assert proc.returncode == 0, proc.stderr
        assert "model.safetensors" in hub.gets()
    proc = _run(tmp_path, colors_root, hub_env(tmp_path, hub.endpoint))
    assert proc.returncode == 0, proc.stderr
    assert "Retrying" not in proc.stderr
