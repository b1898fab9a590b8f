"""lm-eval filter pipelines (`filter_list`) on a native YAML task and lm-eval's group metrics, without lmms-eval:
each metric once per pipeline as `metric,pipeline`, the filtered answers in the samples beside the raw reply,
--rescore giving the same; the built-in filters as lm-eval defines them; groups computing every entry of
their aggregate_metric_list and listed in lm-eval's `results` too. (tests/test_lmms_eval_tasks.py compares real
lmms-eval task folders of these kinds with lmms-eval itself.)"""

from __future__ import annotations

import json
import shutil
import textwrap

import pytest
from test_reliability_run import TASKS_DIR

from conftest import run_in
from harness.config.schema import parse_task_config
from harness.data import filters as F
from harness.engine.rescoring import rescore
from harness.errors import ConfigError
from harness.plugins.loading import load_plugins
from harness.results.writer import read_samples

FILTERED = """
task: colors_filtered
version: 1
dataset: {data_key: colors, split: test}
doc_id: id
media_field: video
target_field: answer
prompt: {template: prompt.jinja}
frames: {strategy: uniform, count: 4, max_side: 64}
generation: {max_new_tokens: 8, temperature: 0}
metrics:
  - name: accuracy
    headline: true
filter_list:
  - name: whole
    filter:
      - function: take_first
  - name: initial
    filter:
      - function: regex
        regex_pattern: "^(\\\\w)"
      - function: take_first
  - name: swapped
    filter:
      - class: own_filters.py:SwapDirections
      - function: take_first
"""

OWN_FILTERS = '''
class SwapDirections:
    """A task's own filter: left and right swapped."""

    def __init__(self, **kwargs):
        self.table = {"left": "right", "right": "left"}

    def apply(self, resps, docs):
        return [[self.table.get(r, r) for r in inst] for inst in resps]
'''

GROUP = """
group: colors_two_metrics
task: [colors_filtered, colors_qa]
aggregate_metric_list:
  - metric: accuracy
    filter_list: [whole, swapped]
    weight_by_size: true
  - metric: accuracy
    aggregation: own_filters.py:largest
"""


@pytest.fixture
def filtered_folder(tmp_path):
    folder = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, folder)
    (folder / "filtered.yaml").write_text(textwrap.dedent(FILTERED))
    (folder / "own_filters.py").write_text(OWN_FILTERS + "\n\ndef largest(values, sizes, weight_by_size):\n    return max(values)\n")
    (folder / "two_metrics.yaml").write_text(textwrap.dedent(GROUP))
    return folder


def test_native_task_scores_each_pipeline_and_records_the_filtered_answers(filtered_folder, colors_root, tmp_path):
    state = load_plugins(include_paths=[filtered_folder])
    out = run_in(tmp_path, ["colors_filtered"], "oracle", colors_root, state, progress=False)
    res = out.results["task_results"]["colors_filtered"]
    assert set(res["metrics"]) == {"accuracy,whole", "accuracy,initial", "accuracy,swapped"}
    assert res["headline"] == "accuracy,whole"
    recs = read_samples(out.samples_paths["colors_filtered"])
    n = len(recs)
    directions = sum(r["target"] in ("left", "right") for r in recs)
    assert res["metrics"]["accuracy,whole"]["value"] == 1.0  # the oracle's reply, unfiltered
    assert res["metrics"]["accuracy,initial"]["value"] == 0.0  # "r" is never "red"
    assert res["metrics"]["accuracy,swapped"]["value"] == pytest.approx((n - directions) / n)
    assert 0 < directions < n
    rec = recs[0]
    assert rec["parsed"]["extra"]["filtered"] == {"whole": rec["raw"], "initial": rec["raw"][0], "swapped": {
        "left": "right", "right": "left"}.get(rec["raw"], rec["raw"])}
    flat = out.results["results"]["colors_filtered"]
    assert flat["accuracy,initial"] == 0.0 and "accuracy_stderr,swapped" in flat and "accuracy,none" not in flat
    again = rescore(list(out.samples_paths.values()), [str(filtered_folder)], None, state=state).results
    assert again["task_results"]["colors_filtered"]["metrics"] == res["metrics"]


def test_group_computes_every_aggregate_metric_and_is_listed_in_results(filtered_folder, colors_root, tmp_path):
    state = load_plugins(include_paths=[filtered_folder])
    out = run_in(tmp_path, ["colors_two_metrics"], "oracle", colors_root, state, progress=False)
    tasks, group = out.results["task_results"], out.results["group_results"]["colors_two_metrics"]
    a, b = tasks["colors_filtered"]["metrics"], tasks["colors_qa"]["metrics"]
    assert set(group["metrics"]) == {"accuracy,whole", "accuracy,swapped", "accuracy"}
    # only colors_filtered has the pipelines' metrics; colors_qa only plain `accuracy` (lm-eval: `accuracy,none`)
    assert group["metrics"]["accuracy,swapped"]["value"] == a["accuracy,swapped"]["value"]
    assert group["metrics"]["accuracy"]["value"] == b["accuracy"]["value"]  # `largest` over one member
    flat = out.results["results"]["colors_two_metrics"]
    assert flat == out.results["groups"]["colors_two_metrics"]
    assert flat["accuracy,whole"] == a["accuracy,whole"]["value"] and flat["accuracy,none"] == b["accuracy"]["value"]


def test_builtin_filters_follow_lm_eval():
    doc = {"choices": ["red square", "blue circle"]}
    assert list(F.TakeFirstFilter().apply([["a", "b"], []], [doc, doc])) == ["a", ""]
    assert F.RegexFilter(r"answer: (\w+)").apply([["answer: B.", "none"]], [doc]) == [["B", "[invalid]"]]
    assert F.RegexFilter(r"(x?)").apply([["abc"]], [doc]) == [[""]]  # an empty match stays empty
    assert F.MultiChoiceRegexFilter(r"\(([AB])\)", ignore_case=True).apply(
        [["I think (B)", "it is the Blue Circle", "Answer: A", "??"]], [doc]
    ) == [["B", "(B)", "(A)", "[invalid]"]]
    assert F.MajorityVoteFilter().apply([["x", "y", "y"]], [doc]) == [["y"]]
    assert F.WhitespaceFilter().apply([["  a", " b", "c"]], [doc]) == [[" a", "b", "c"]]
    assert F.MapFilter({"A": 1}, 0).apply([["A", "B"]], [doc]) == [[1, 0]]
    assert F.StripThinkingFilter().apply([["<think>x</think> B", "x</think>C"]], [doc]) == [["B", "C"]]


def test_bad_filter_lists_are_config_errors_naming_the_field(tmp_path):
    base = {"task": "t", "version": 1}
    with pytest.raises(ConfigError, match="filter_list"):
        parse_task_config({**base, "filter_list": [{"name": "a,b", "filter": []}]}, "t.yaml")
    with pytest.raises(ConfigError, match="repeated"):
        parse_task_config({**base, "filter_list": [{"name": "a", "filter": []}] * 2}, "t.yaml")
    with pytest.raises(ConfigError, match="unknown filter 'no_such'"):
        F.build_pipelines([{"name": "a", "filter": [{"function": "no_such"}]}], tmp_path, "t.yaml filter_list")
    with pytest.raises(ConfigError, match="cannot build filter"):
        F.build_pipelines([{"name": "a", "filter": [{"function": "regex", "bogus": 1}]}], tmp_path, "t")


PER_TYPE_UTILS = '''
import os


def doc_to_visual(doc):
    return [os.environ["LMMS_TEST_VIDEO"]]


def doc_to_text(doc):
    return f"Question {doc['qid']}?"


def process_results(doc, results):
    record = {"type": doc["type"], "ok": float(results[0].strip() == doc["answer"])}
    return {"overall": record, f"acc_{doc['type']}": record}  # each document: overall and its own type


def accuracy(results):
    return sum(r["ok"] for r in results) / len(results)  # TypeError on anything but its own records
'''

PER_TYPE_YAML = """
task: per_type
dataset_path: someone/hub-only
test_split: test
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_target: answer
process_results: !function utils.process_results
metric_list:
  - {metric: overall, aggregation: !function utils.accuracy}
  - {metric: acc_x, aggregation: !function utils.accuracy}
  - {metric: acc_y, aggregation: !function utils.accuracy}
  - {metric: acc_never, aggregation: !function utils.accuracy}
"""


def test_a_metric_a_document_does_not_return_is_not_applicable_to_it(tmp_path, monkeypatch):
    from lmms_eval_compare import replay_plugin

    from harness.config.run import RunConfig
    from harness.engine.runner import run
    from harness.frames.synthetic import write_marker_video

    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "utils.py").write_text(PER_TYPE_UTILS)
    (folder / "per_type.yaml").write_text(PER_TYPE_YAML)
    rows = [{"qid": i, "type": "xyx"[i % 3], "answer": "A"} for i in range(6)]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    replies = ["A", "B", "A", "A", "A", "B"]  # x: docs 0, 2, 3, 5 -> 3 of 4; y: docs 1, 4 -> 1 of 2
    (tmp_path / "replies.json").write_text(json.dumps({"per_type": replies}))
    monkeypatch.setenv("LMMS_TEST_VIDEO", str(write_marker_video(tmp_path / "v.mp4", 4, 32, 24, fps=4)))
    cfg = RunConfig(
        tasks=["per_type"], model="replay", model_args={"replies": str(tmp_path / "replies.json")},
        data=tmp_path / "rows.jsonl", include_path=[str(folder)], cache_dir=tmp_path / "c",
        output_path=tmp_path / "o", log_samples=True, progress=False,
    )
    state = load_plugins(include_paths=[folder], modules=[replay_plugin()])
    out = run(cfg, state)
    res = out.results["task_results"]["per_type"]
    assert out.results["complete"], out.results["incomplete_reasons"]
    m = res["metrics"]
    assert (m["overall"]["value"], m["overall"]["n"]) == (pytest.approx(4 / 6), 6)
    assert (m["acc_x"]["value"], m["acc_x"]["n"]) == (0.75, 4)
    assert (m["acc_y"]["value"], m["acc_y"]["n"]) == (0.5, 2)
    assert (m["acc_never"]["value"], m["acc_never"]["n"]) == (None, 0)
    assert "acc_never,none" not in out.results["results"]["per_type"]  # lm-eval lists no such metric
    assert all(set(r["scores"]) == {"overall", f"acc_{r['doc']['type']}"} for r in read_samples(out.samples_paths["per_type"]))
    again = rescore(list(out.samples_paths.values()), [str(folder)], None, state=state).results
    assert again["task_results"]["per_type"]["metrics"] == m


def test_group_weight_by_size_weighs_by_each_members_n():
    from harness.scoring.task_results import group_metric_values

    results = {
        "a": {"metrics": {"acc": {"value": 1.0, "n": 3}, "f1,strict": {"value": 0.5, "n": 3}}},
        "b": {"metrics": {"acc": {"value": 0.0, "n": 1}}},
    }
    spec = [("acc", True, None), ("f1,strict", False, None), ("acc_missing", False, None)]
    out = group_metric_values(["a", "b"], results, spec)
    assert out["acc"] == {"value": 0.75, "n": 4, "n_tasks": 2}
    assert out["f1,strict"]["value"] == 0.5 and "acc_missing" not in out
    plain = group_metric_values(["a", "b"], results, [("acc", False, None)])
    assert plain["acc"]["value"] == 0.5
    assert group_metric_values(["a", "b"], results, [("acc", True, lambda v, s, w: sum(s))])["acc"]["value"] == 4


NESTED = """
group: colors_nested
task:
  - group: colors_inner
    task: [colors_qa]
    aggregate_metric_list:
      - metric: accuracy
        weight_by_size: true
  - colors_filtered
aggregate_metric_list:
  - metric: accuracy
    filter_list: [none, whole]
"""


def test_groups_defined_inside_a_groups_task_list_run_as_groups(filtered_folder, colors_root, tmp_path):
    (filtered_folder / "nested.yaml").write_text(textwrap.dedent(NESTED))
    state = load_plugins(include_paths=[filtered_folder])
    out = run_in(tmp_path, ["colors_nested"], "oracle", colors_root, state, progress=False)
    groups, tasks = out.results["group_results"], out.results["task_results"]
    assert set(tasks) == {"colors_qa", "colors_filtered"}
    assert groups["colors_inner"]["metrics"]["accuracy"]["value"] == tasks["colors_qa"]["metrics"]["accuracy"]["value"]
    outer = groups["colors_nested"]["metrics"]
    assert set(outer) == {"accuracy", "accuracy,whole"} and outer["accuracy,whole"]["n_tasks"] == 1
    flat = out.results["results"]
    assert flat["colors_inner"]["accuracy,none"] == tasks["colors_qa"]["metrics"]["accuracy"]["value"]
    # lm-eval's pooled stderr: one member's own; "N/A" when a member has none
    se = flat["colors_qa"]["accuracy_stderr,none"]
    assert isinstance(se, float) and flat["colors_inner"]["accuracy_stderr,none"] == pytest.approx(se)


def test_group_stderr_is_lm_evals_pooled_sample_stderr():
    from harness.results.lm_eval_keys import group_stderrs

    tasks = {"a": {"metrics": {"acc": {"value": 0.5, "n": 3}}}, "b": {"metrics": {"acc": {"value": 0.2, "n": 5}}}}
    group = {"tasks": ["a", "b"], "metrics": {"acc": {"value": 0.3}}}
    pooled = ((2 * 0.1**2 * 3 + 4 * 0.2**2 * 5) / (8 - 2) / 8) ** 0.5  # lm_eval.api.metrics.pooled_sample_stderr
    assert group_stderrs(group, tasks, {"a": {"acc": 0.1}, "b": {"acc": 0.2}})["acc"] == pytest.approx(pooled)
    assert group_stderrs(group, tasks, {"a": {"acc": 0.1}, "b": {"acc": None}})["acc"] is None  # "N/A"
