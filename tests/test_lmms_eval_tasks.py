"""lmms-eval's own video task folders, unchanged, give lmms-eval's numbers in the harness (docs/plugins.md,
"Verified lmms-eval tasks"): for every fixture under tests/lmms_fixtures/, the harness's metrics equal what
lmms-eval's own functions compute on the same replies, and its prompts equal lmms-eval's for every doc.

Runs where lmms-eval is importable: `make test` runs this file again in lmms-eval's environment (the `lmms`
extra: lmms-eval 0.7.3, PyAV 15); elsewhere it skips.
"""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip(
    "lmms_eval",
    reason="lmms-eval is not installed: the task folders come from its wheel (make test-peers installs the "
    "lmms extra beside the main environment and runs this file there)",
)

from lmms_eval_compare import (  # noqa: E402
    build_lmms_task,
    copy_folder,
    fixtures,
    lmms_group_numbers,
    lmms_numbers,
    lmms_prompts,
    make_media,
    offline_hub_snapshots,
    replay_plugin,
    task_cases,
    write_rows,
)

from harness.config.run import RunConfig  # noqa: E402
from harness.contract.hooks import contract_of  # noqa: E402
from harness.engine.runner import build_task, run  # noqa: E402
from harness.frames.synthetic import write_marker_video  # noqa: E402
from harness.plugins.loading import load_plugins  # noqa: E402
from harness.results.writer import read_samples  # noqa: E402

FIXTURES = {fx["name"]: fx for fx in fixtures()}


@pytest.fixture(scope="module")
def tiny_video(tmp_path_factory):
    return write_marker_video(tmp_path_factory.mktemp("lmms_video") / "v.mp4", 8, 32, 24, fps=8)


def _run_harness(name: str, replies: dict, rows, folder, tmp_path):
    """The harness on task or group `name` of the copied folder, the rows as --data, fixed replies per task."""
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(replies))
    cfg = RunConfig(
        tasks=[name],
        model="replay",
        model_args={"replies": str(path)},
        data=rows,
        include_path=[str(folder)],
        cache_dir=tmp_path / "cache",
        output_path=tmp_path / "out",
        log_samples=True,
        progress=False,
    )
    return run(cfg, load_plugins(include_paths=[folder], modules=[replay_plugin()]))


@pytest.mark.parametrize(("fixture", "task"), task_cases())
def test_task_gives_lmms_evals_numbers_on_identical_replies(fixture, task, tmp_path, monkeypatch, tiny_video):
    fx = FIXTURES[fixture]
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    offline_hub_snapshots(tmp_path / "hf" / "hub", fx.get("hub_snapshots", []), monkeypatch)
    folder = copy_folder(fx["folder"], tmp_path / "tasks")
    rows = write_rows(fx["rows"], tmp_path / "rows.jsonl", fx.get("image_fields", []))
    theirs_task = build_lmms_task(folder, task, rows)
    made = make_media(theirs_task, tiny_video, fx.get("media", []), tmp_path / "hf")
    # every task names files but one with images in its rows (`image_fields`) or none at all (`no_media`)
    assert made > 0 or fx.get("image_fields") or fx.get("no_media"), "the task's doc_to_visual named no file"
    out = _run_harness(task, {task: fx["replies"]}, rows, folder, tmp_path)
    ours = out.results["task_results"][task]
    assert (ours["n_scored"], ours["n_errors"]) == (len(fx["rows"]), 0), ours.get("error_examples")
    records = read_samples(out.samples_paths[task])
    assert [re.sub(r"<(video|image)(:[^>]*)?>", "", r["prompt"]) for r in records] == lmms_prompts(theirs_task)
    theirs = lmms_numbers(theirs_task, fx["replies"], tmp_path / "out")
    assert theirs, "lmms-eval aggregated no metric"
    # a metric no document returned (lmms-eval lists none) is not applicable: n 0, no value, not in `results`
    assert {k for k, m in ours["metrics"].items() if m["n"]} == set(theirs)
    assert all(m["value"] is None for k, m in ours["metrics"].items() if k not in theirs)
    for metric, value in theirs.items():
        assert ours["metrics"][metric]["value"] == pytest.approx(float(value), abs=1e-9), metric


@pytest.mark.parametrize(("fixture", "group"), [(fx["name"], g) for fx in FIXTURES.values() for g in fx.get("groups", [])])
def test_group_gives_lmms_evals_group_metrics(fixture, group, tmp_path, monkeypatch):
    """Every entry of the group's aggregate_metric_list, as lmms-eval's consolidate_group_results computes it
    from the members' metrics; the group listed in lm-eval's `results` as in `groups`."""
    fx = FIXTURES[fixture]
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    offline_hub_snapshots(tmp_path / "hf" / "hub", fx.get("hub_snapshots", []), monkeypatch)
    folder = copy_folder(fx["folder"], tmp_path / "tasks")
    rows = write_rows(fx["rows"], tmp_path / "rows.jsonl", fx.get("image_fields", []))
    out = _run_harness(group, {task: fx["replies"] for task in fx["tasks"]}, rows, folder, tmp_path)
    theirs = lmms_group_numbers(folder, group, rows, fx["replies"], tmp_path / "out")
    assert len(theirs) >= 2, theirs
    ours = out.results["results"][group]
    assert ours == out.results["groups"][group]
    assert {k for k in ours if "," in k and "_stderr" not in k} == set(theirs)
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(float(value), abs=1e-6), key


FILTER_CASES = [
    ("take_first", {}),
    ("regex", {}),
    ("regex", {"regex_pattern": r"answer is \(?([A-D])\)?", "group_select": -1, "fallback": "none"}),
    ("regex", {"regex_pattern": r"(-?[$0-9.,]{2,})|(-?[0-9]+)", "group_select": -1}),
    ("remove_whitespace", {}),
    ("lowercase", {}),
    ("uppercase", {}),
    ("map", {"mapping_dict": {"A": "yes", "B": "no"}, "default_value": "?"}),
    ("majority_vote", {}),
    ("take_first_k", {"k": 2}),
    ("multi_choice_regex", {"regex_pattern": r"\(([A-D])\)", "ignore_case": True, "ignore_punctuation": True}),
    ("strip_thinking", {}),
]
FILTER_REPLIES = [
    ["The answer is (B).", " b", "A"],
    ["  #### 1,234 then #### 56", "<think>maybe C</think> the answer is D", "x</think>(A) red"],
    ["I pick: B", "it is the Blue Circle.", "nothing at all"],
    ["", "42", "Total: $1,000.50 and 7"],
]


@pytest.mark.parametrize(("name", "kwargs"), FILTER_CASES)
def test_builtin_filters_equal_lmms_evals_own(name, kwargs):
    """harness/data/filters.py's ports give what lmms-eval's FILTER_REGISTRY classes give, on the same replies."""
    from lmms_eval.filters import FILTER_REGISTRY

    from harness.data.filters import FILTERS

    docs = [{"choices": ["red square", "blue circle", "green", "white"]}] * len(FILTER_REPLIES)
    theirs = list(FILTER_REGISTRY[name](**kwargs).apply([list(r) for r in FILTER_REPLIES], docs))
    ours = list(FILTERS[name](**kwargs).apply([list(r) for r in FILTER_REPLIES], docs))
    assert ours == theirs and len(ours) == len(FILTER_REPLIES)


@pytest.mark.parametrize("fixture", sorted(FIXTURES))
def test_every_function_of_a_ported_task_satisfies_its_contract(fixture, tmp_path, monkeypatch):
    """Each ported task builds with every reference its YAML holds (doc_to_*, process_results, process_docs,
    aggregations, filter classes) checked against its Protocol in harness/contract/hooks.py, as lmms-eval calls
    it: lmms-eval's own utils.py files (no annotations, defaults, *args / **kwargs) are not refused."""
    fx = FIXTURES[fixture]
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # some utils.py read it when imported
    folder = copy_folder(fx["folder"], tmp_path / "tasks")
    state = load_plugins(include_paths=[folder])
    for task in fx["tasks"]:
        built = build_task(state, task)  # Task.check_hooks: every reference resolved and held to its contract
        refs = built.references()  # gsm8k's are all strings and names: none
        assert all(contract_of(f) is not None for f, _ in refs), [f for f, _ in refs if contract_of(f) is None]
