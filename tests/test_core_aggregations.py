"""Aggregations as functions (registered metrics, registered aggregations, a task's own function) with
clustered bootstrap CIs that recompute the corpus metric; judges found in the judge registry."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

import harness_metrics as metrics
from harness.api import Capabilities, Model, Response, hookimpl
from harness.config.run import RunConfig
from harness.engine.runner import load_judge, run
from harness.errors import ConfigError, UnknownNameError
from harness.plugins.loading import load_plugins
from harness.scoring.aggregations import Aggregator, aggregate_with_note, resolve_aggregation

CAPTIONS = [
    ("v0", ["a red square moves left", "a red box slides to the left"]),
    ("v0", ["the square turns green", "a green square"]),
    ("v1", ["a blue circle spins", "a blue disc rotates"]),
    ("v1", ["nothing happens", "the scene is still"]),
    ("v2", ["two cubes collide", "a pair of cubes bump"]),
    ("v2", ["a cone falls over", "the cone tips over"]),
]
WRONG = "a cat sleeps on a red mat"


class CaptionModel(Model):
    """Answers the first reference caption, except for docs whose number is odd (a fixed wrong caption)."""

    name = "captioner"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True)

    def generate(self, requests):
        out = []
        for r in requests:
            right = int(r.doc_id[1:]) % 2 == 0
            out.append(Response(text=r.hints.get("oracle_answer", "") if right else WRONG))
        return out


class EchoJudge(Model):
    """A judge model: always says 'yes'."""

    name = "echo_judge"
    capabilities = Capabilities(video=False, multi_video=False, images=False)

    def generate(self, requests):
        return [Response(text="yes") for _ in requests]


def _count_items(items: list) -> float:
    """A registered aggregation: the fraction of items whose answer equals the first reference."""
    return sum(1.0 for answer, refs in items if answer == refs[0]) / len(items)


class _Plugin:
    @hookimpl
    def register_models(register):
        register("captioner", CaptionModel, "test captioner")

    @hookimpl
    def register_judges(register):
        register("my_judge", EchoJudge, "a model used as a judge")

    @hookimpl
    def register_aggregations(register):
        register("exact_first", _count_items, "fraction equal to the first reference")


def _plugin_module():
    mod = type(sys)("harness_test_aggregations_plugin")
    for name in ("register_models", "register_judges", "register_aggregations"):
        setattr(mod, name, getattr(_Plugin, name))
    return mod


def _write_task(folder, metrics_yaml: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"id": f"d{i}", "video": v, "captions": refs} for i, (v, refs) in enumerate(CAPTIONS)]
    (folder / "data").mkdir(exist_ok=True)
    (folder / "data" / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (folder / "hooks.py").write_text(
        textwrap.dedent(
            """
            def oracle(doc, target):
                return target[0]

            def longest(items):
                return float(max(len(a) for a, _ in items))
            """
        )
    )
    (folder / "captions.yaml").write_text(
        textwrap.dedent(
            """
            task: captions
            version: 1
            dataset: {source: data}
            media_field: null
            target_field: captions
            prompt: {text: "Describe the video."}
            hooks: {oracle_answer: hooks.py:oracle}
            cluster_field: video
            breakdowns: [video]
            """
        )
        + metrics_yaml
    )


METRICS = """
metrics:
  - {name: bleu4, aggregation: bleu4, headline: true}
  - {name: cider, aggregation: cider_d}
  - {name: first, aggregation: exact_first}
  - {name: longest, aggregation: hooks.py:longest}
"""


@pytest.fixture
def captions_run(tmp_path):
    _write_task(tmp_path / "task", METRICS)
    state = load_plugins(include_paths=[tmp_path / "task"], modules=[_plugin_module()])
    cfg = RunConfig(
        tasks=["captions"],
        model="captioner",
        cache_dir=tmp_path / "cache",
        include_path=[str(tmp_path / "task")],
        progress=False,
        judge="my_judge",
    )
    return run(cfg, state).results


def test_registered_metrics_and_functions_aggregate_the_corpus(captions_run):
    res = captions_run["task_results"]["captions"]
    preds = [refs[0] if i % 2 == 0 else WRONG for i, (_, refs) in enumerate(CAPTIONS)]
    refs = [r for _, r in CAPTIONS]
    assert res["headline"] == "bleu4"
    assert res["metrics"]["bleu4"]["value"] == pytest.approx(metrics.bleu4(preds, refs), abs=1e-9)
    assert res["metrics"]["cider"]["value"] == pytest.approx(metrics.cider_d(preds, refs), abs=1e-9)
    assert res["metrics"]["first"]["value"] == pytest.approx(0.5)
    assert res["metrics"]["longest"]["value"] == float(len(WRONG))
    # breakdowns recompute the corpus metric per group
    cell = res["breakdowns"]["video"]["v1"]
    assert cell["bleu4"]["value"] == pytest.approx(metrics.bleu4(preds[2:4], refs[2:4]), abs=1e-9)


def test_corpus_metrics_get_clustered_bootstrap_cis(captions_run):
    res = captions_run["task_results"]["captions"]["metrics"]
    for name in ("bleu4", "cider"):
        lo, hi = res[name]["ci"]
        assert lo is not None and hi is not None and lo <= res[name]["value"] <= hi and lo < hi
    # every video has one right and one wrong caption: each cluster replicate is exactly 0.5
    assert res["first"]["ci"] == [0.5, 0.5]


def test_corpus_ci_resamples_clusters_not_items():
    """With one item right per cluster of two, every cluster replicate scores 0.5 exactly: zero width.
    Resampling items instead would give a wide interval."""
    agg = Aggregator("first", _count_items, corpus=True)
    items = [["a", ["a"]], ["b", ["x"]]] * 10
    clusters = [i // 2 for i in range(20)]
    value, lo, hi, _ = aggregate_with_note(agg, items, clusters, seed=0)
    assert value == lo == hi == 0.5
    _, lo_items, hi_items, _ = aggregate_with_note(agg, items, list(range(20)), seed=0)
    assert hi_items - lo_items > 0.2


def test_judge_is_found_in_the_judge_registry(captions_run):
    assert captions_run["config"]["judge"]["name"] == "my_judge"


def test_unknown_judge_names_judges_and_models(tmp_path):
    state = load_plugins(modules=[_plugin_module()], use_entry_points=False)
    assert isinstance(load_judge(state, "my_judge", {}), EchoJudge)
    assert isinstance(load_judge(state, "captioner", {}), CaptionModel)  # any model can judge
    with pytest.raises(UnknownNameError, match="unknown judge 'my_jugde'.*'my_judge'"):
        load_judge(state, "my_jugde", {})


def test_unknown_aggregation_is_a_config_error_naming_task_and_metric():
    with pytest.raises(ConfigError, match="task 't' metric 'm'.*unknown aggregation 'bleu5'"):
        resolve_aggregation("bleu5", None, None, "task 't' metric 'm'")


def test_report_and_compare_read_runs_with_corpus_metrics(tmp_path):
    """Corpus items (pairs) in samples files have no per-sample value: report and compare skip them."""
    from harness.cli.main import main

    _write_task(tmp_path / "task", METRICS)
    state = load_plugins(include_paths=[tmp_path / "task"], modules=[_plugin_module()])
    paths = []
    for i in range(2):
        cfg = RunConfig(
            tasks=["captions"],
            model="captioner",
            cache_dir=tmp_path / "cache",
            output_path=tmp_path / f"out{i}",
            log_samples=True,
            include_path=[str(tmp_path / "task")],
            progress=False,
        )
        paths.append(run(cfg, state).results_path)
    assert main(["report", str(paths[0]), "--out", str(tmp_path / "report")]) == 0
    assert any((tmp_path / "report").iterdir())
    assert main(["compare", str(paths[0]), str(paths[1])]) == 0
