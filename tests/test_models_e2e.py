"""Each preset's code path end to end through the evaluator on built CycliST and TempCloze sets (tiny random
models, offline), and a 2-rank data-parallel run over gloo equal to one rank."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import harness_env, run_harness, run_in, torchrun_harness
from harness.plugins.loading import load_plugins
from harness.results.writer import read_samples

os.environ["HF_HUB_OFFLINE"] = "1"
pytest.importorskip("torch")
pytest.importorskip("transformers")
pytestmark = pytest.mark.hf

from tiny_checkpoints import PRESET_FAMILY, Checkpoints  # noqa: E402

E2E_PRESETS = ("llava_video_7b", "llava_next_video_7b", "qwen2_vl_7b", "qwen2_5_vl_7b", "internvl3_8b")
CASES = [(PRESET_FAMILY[preset], preset) for preset in E2E_PRESETS]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict[str, Path]:
    from harness_builders.cyclist.commands import CyclistBuilder
    from harness_builders.tempcloze.commands import TempClozeBuilder

    root = tmp_path_factory.mktemp("e2e_data")
    (cyc,) = CyclistBuilder().demo(root / "cyclist")
    (tc,) = TempClozeBuilder().demo(root / "tempcloze")
    return {"cyclist": cyc.data_dir, "tempcloze": tc.data_dir}


@pytest.fixture(scope="module")
def checkpoints() -> dict[str, Path]:
    return Checkpoints()


def _args(path: Path) -> dict:
    return {"pretrained": str(path), "dtype": "float32", "device_map": "cpu", "max_new_tokens": 4}


@pytest.mark.parametrize("family, preset", CASES)
def test_preset_runs_cyclist_and_tempcloze_through_the_evaluator(data, checkpoints, family, preset, tmp_path):
    state = load_plugins()
    for bench, task in (("cyclist", "cyclist_l1"), ("tempcloze", "tempcloze_semantic")):
        # random weights rarely emit EOS; TempCloze asks for 8192 new tokens, so cap them here
        options = {"limit": 2, "batch_size": 2, "gen_kwargs": {"max_new_tokens": 4}, "progress": False}
        options["model_args"] = _args(checkpoints[family])
        out = run_in(tmp_path, [task], preset, data[bench], state, **options, output_path=tmp_path / bench)
        res = out.results["task_results"][task]
        assert res["n_samples"] == 2 and res["n_errors"] == 0, res["errors"]
        budget = out.results["model"]["capabilities"]["max_frames"]
        for rec in read_samples(out.samples_paths[task]):
            assert rec["raw"] is not None
            used = sum(len(m["indices"]) for m in rec["media"])
            assert 0 < used <= budget, (preset, used, budget)  # the preset's frame budget, split over clips


def test_two_ranks_over_gloo_equal_one_rank(data, checkpoints, tmp_path):
    env = harness_env(None, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1")
    margs = ",".join(f"{k}={v}" for k, v in _args(checkpoints["qwen2_vl"]).items())
    common = [
        "--tasks",
        "cyclist_l1",
        "--model",
        "qwen2_vl_7b",
        "--model_args",
        margs,
        "--data",
        str(data["cyclist"]),
        "--limit",
        "6",
        "--log_samples",
        "--no_progress",
    ]
    one = run_harness(
        [*common, "--output_path", str(tmp_path / "one"), "--cache_dir", str(tmp_path / "c1")], env
    )
    assert one.returncode == 0, one.stderr
    torchrun = Path(sys.executable).with_name("torchrun")
    two = torchrun_harness(
        str(torchrun), [*common, "--output_path", str(tmp_path / "two"), "--cache_dir", str(tmp_path / "c2")], env
    )
    assert two.returncode == 0, two.stderr
    res = [json.loads(next((tmp_path / n).rglob("results_*.json")).read_text()) for n in ("one", "two")]
    assert res[0]["task_results"] == res[1]["task_results"]
    samples = [next((tmp_path / n).rglob("samples_*.jsonl")).read_text() for n in ("one", "two")]
    assert samples[0] == samples[1]
