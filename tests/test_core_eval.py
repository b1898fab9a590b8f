"""The evaluator end to end on the test plugin: baselines, results schema, samples, rescore, errors, groups."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import PLUGIN_PKG
from harness.api import Capabilities, Model, Response
from harness.config.run import RunConfig
from harness.engine.rescoring import rescore
from harness.engine.runner import run
from harness.errors import StrictModeError
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry
from harness.results.lm_eval_keys import TIMING_KEYS
from harness.results.writer import read_samples, validate_results

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


def _cfg(tmp_path, root, model="oracle", tasks=("colors_qa",), **kw):
    return RunConfig(
        tasks=list(tasks),
        model=model,
        data=root,
        output_path=tmp_path / "out",
        log_samples=True,
        cache_dir=tmp_path / "cache",
        include_path=[str(TASKS_DIR)],
        progress=False,
        **kw,
    )


@pytest.fixture
def state(with_plugin):
    return load_plugins()


def test_oracle_scores_100_and_results_validate(tmp_path, colors_root, state):
    out = run(_cfg(tmp_path, colors_root), state)
    res = out.results["task_results"]["colors_qa"]
    assert res["metrics"]["accuracy"]["value"] == 1.0
    assert res["n_samples"] == 24 and res["n_errors"] == 0 and res["n_invalid"] == 0
    assert set(res["breakdowns"]["family"]) == {"color", "direction"}
    validate_results(out.results)
    on_disk = json.loads(out.results_path.read_text())
    assert on_disk["samples_files"]["colors_qa"] == out.samples_paths["colors_qa"].name
    assert out.results_path.parent.name == "oracle"
    cfg = on_disk["config"]["tasks"]["colors_qa"]
    assert cfg["frame_spec"]["count"] == 8 and cfg["effective_frame_spec"]["max_frames"] == 1
    rec = read_samples(out.samples_paths["colors_qa"])[0]
    assert rec["media"][0]["path"] == "videos/test_000.mp4"
    assert rec["media"][0]["indices"] == [0]  # the oracle declares a 1-frame budget: recorded as used
    assert {"doc_id", "prompt", "raw", "parsed", "target", "scores", "frame_spec"} <= set(rec)


def test_frame_indices_of_a_real_budget_are_logged(tmp_path, colors_root, state):
    out = run(
        _cfg(tmp_path, colors_root, model="counting", model_args={"log": str(tmp_path / "calls.log")}), state
    )
    rec = read_samples(out.samples_paths["colors_qa"])[0]
    assert rec["media"][0]["indices"] == [0, 3, 7, 10, 13, 16, 20, 23]  # uniform 8 of 24, both ends
    assert all(line.split()[-1] == "8" for line in (tmp_path / "calls.log").read_text().splitlines())


class _Named(Model):
    """A model that declares a display name and asks for hints: it answers the oracle's answer."""

    name = "named"
    display_name = "Named Model 1"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=1)

    def generate(self, requests):
        return [Response(text=str(r.hints["oracle_answer"])) for r in requests]


class _Plain(_Named):
    """The same without the declarations: the --model name, and requests without hints."""

    name = "plain"
    display_name = None
    uses_hints = False

    def generate(self, requests):
        assert all(r.hints == {} for r in requests)
        return [Response(text="red") for _ in requests]


def test_the_declared_model_attributes_name_the_results_and_pass_hints(tmp_path, colors_root, state):
    state.registry.add(Entry("model", "named", _Named))
    state.registry.add(Entry("model", "plain", _Plain))
    out = run(_cfg(tmp_path, colors_root, model="named"), state)
    assert out.results["model"]["name"] == "Named Model 1" and out.results_path.parent.name == "Named_Model_1"
    assert out.results["task_results"]["colors_qa"]["metrics"]["accuracy"]["value"] == 1.0  # the hints arrived
    plain = run(_cfg(tmp_path, colors_root, model="plain"), state)
    assert plain.results["model"]["name"] == "plain" and plain.results_path.parent.name == "plain"


def test_random_and_prior_baselines(tmp_path, colors_root, state):
    rnd = run(_cfg(tmp_path, colors_root, model="random", seed=1), state).results["task_results"]["colors_qa"]
    assert 0.0 <= rnd["metrics"]["accuracy"]["value"] <= 0.6
    prior = run(_cfg(tmp_path, colors_root, model="prior"), state).results["task_results"]["colors_qa"]
    # the prior answers the train split's most common colour and direction: never perfect, never invalid
    assert prior["n_invalid"] == 0 and prior["metrics"]["accuracy"]["value"] < 1.0


def test_rescore_equals_original(tmp_path, colors_root, state):
    out = run(_cfg(tmp_path, colors_root, model="counting", model_args={"wrong_every": 3}), state)
    again = rescore([out.samples_paths["colors_qa"]], [str(TASKS_DIR)], tmp_path / "rescored")
    assert again.results["task_results"] == out.results["task_results"]
    assert out.results["task_results"]["colors_qa"]["metrics"]["accuracy"]["value"] < 1.0


def test_group_runs_members_and_aggregates(tmp_path, colors_root, state):
    out = run(_cfg(tmp_path, colors_root, tasks=("colors_all",)), state)
    assert set(out.results["task_results"]) == {"colors_qa", "colors_qa_color"}
    group = out.results["group_results"]["colors_all"]
    assert group["metrics"]["accuracy"] == {"value": 1.0, "n": 36, "n_tasks": 2}
    assert group["tables"] == {"samples_per_task": {"colors_qa": 24, "colors_qa_color": 12}}  # the group hook
    assert out.results["task_results"]["colors_qa_color"]["n_samples"] == 12  # the variant's loader filter


def test_missing_video_is_a_counted_error_and_strict_stops(tmp_path, colors_root, state):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    (root / "colors" / "videos" / "test_001.mp4").unlink()
    out = run(_cfg(tmp_path, root), state)
    res = out.results["task_results"]["colors_qa"]
    assert res["errors"] == {"media": 2} and res["n_scored"] == 22
    bad = [r for r in read_samples(out.samples_paths["colors_qa"]) if r["error"]]
    assert "test_001.mp4" in bad[0]["error"]["message"]
    with pytest.raises(StrictModeError, match="test_001"):
        run(_cfg(tmp_path, root, strict=True, no_cache=True), state)


def test_escaping_media_path_is_refused(tmp_path, colors_root, state):
    root = tmp_path / "data"
    shutil.copytree(colors_root, root)
    rows = [json.loads(x) for x in (root / "colors" / "test.jsonl").read_text().splitlines()]
    rows[0]["video"] = "../../etc/passwd"
    (root / "colors" / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = run(_cfg(tmp_path, root), state)
    bad = [r for r in read_samples(out.samples_paths["colors_qa"]) if r["error"]]
    assert len(bad) == 1 and "escapes the dataset folder" in bad[0]["error"]["message"]


def test_missing_dataset_folder_says_how_to_build(tmp_path, state):
    from harness.errors import DataError

    with pytest.raises(DataError, match="make_dataset"):
        run(_cfg(tmp_path, None), state)


def test_cache_serves_second_run_without_model_calls(tmp_path, colors_root, state):
    log = tmp_path / "calls.log"
    cfg = _cfg(tmp_path, colors_root, model="counting", model_args={"log": str(log)})
    first = run(cfg, state)
    calls = log.read_text().count("\n")
    second = run(cfg, state)
    assert calls == 24 and log.read_text().count("\n") == 24
    assert second.stats == {"cache_hits": 24, "generated": 0, "clips_loaded": 0, "cache_rejected": 0}
    varying = ("created", "samples_files", *TIMING_KEYS)
    strip = lambda r: {k: v for k, v in r.items() if k not in varying}  # noqa: E731
    assert strip(first.results) == strip(second.results)
    assert first.samples_paths["colors_qa"].read_bytes() == second.samples_paths["colors_qa"].read_bytes()
