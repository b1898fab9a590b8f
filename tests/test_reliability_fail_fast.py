"""Fail fast and say what is missing: data is checked before the model loads; a model whose extra is not
installed names the extra (`pip install -e ".[hf]"`) instead of ending in a raw ModuleNotFoundError."""

from __future__ import annotations

import pytest

from conftest import harness_env, run_harness, without_packages
from harness.config.run import RunConfig
from harness.engine import runner
from harness.errors import DataError
from harness.plugins.loading import load_plugins


@pytest.fixture
def no_hf_extra(tmp_path, plugin_site):
    hf_extra = ("torch", "torchvision", "transformers", "accelerate")
    return without_packages(harness_env(plugin_site), tmp_path / "no_hf", *hf_extra)


def test_a_model_without_its_extra_names_the_extra(no_hf_extra, colors_root, tmp_path):
    args = ["--tasks", "colors_qa", "--model", "llava_video_7b", "--data", str(colors_root)]
    proc = run_harness([*args, "--cache_dir", str(tmp_path / "c"), "--no_progress"], no_hf_extra, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "model 'llava_video_7b' needs the 'hf' extra" in proc.stderr
    assert 'pip install -e ".[hf]"' in proc.stderr and "'torch'" in proc.stderr


def test_missing_data_is_reported_before_the_model_loads(no_hf_extra, tmp_path):
    args = ["--tasks", "colors_qa", "--model", "llava_video_7b", "--data", str(tmp_path / "nowhere")]
    proc = run_harness([*args, "--cache_dir", str(tmp_path / "c"), "--no_progress"], no_hf_extra, timeout=120)
    assert proc.returncode == 2 and "does not exist" in proc.stderr and "torch" not in proc.stderr, proc.stderr


def test_every_task_is_loaded_before_the_model(tmp_path, colors_root, with_plugin, monkeypatch):
    loaded = []

    def refuse(*a, **k):
        loaded.append(a[1])
        raise AssertionError("the model was loaded before the data was checked")

    monkeypatch.setattr(runner, "load_model", refuse)
    cfg = RunConfig(
        tasks=["colors_qa", "colors_qa_color"],
        model="oracle",
        data=tmp_path / "missing",
        cache_dir=tmp_path / "c",
        progress=False,
    )
    with pytest.raises(DataError, match="does not exist"):
        runner.run(cfg, load_plugins())
    assert loaded == []
