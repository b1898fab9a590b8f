"""Porting an lmms-eval task: the worked example of docs/plugins.md, written from the page and run as it is.

The metric values must be what lmms-eval computes on the same replies: process_results on each stripped
reply, then each metric's aggregation over the per-sample values. Where lmms-eval is installed (lmms-eval's
environment, as `make test-peers` runs this file), lmms-eval itself computes them.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import REPO, harness_env, run_harness, task_folder
from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.results.writer import read_samples

SECTION = "## Porting an lmms-eval task"


def _run_counting(tmp_path: Path, folder: Path, task: str, data: Path):
    """Run a task from an include folder with the `counting` model (every third answer wrong), samples kept."""
    cfg = RunConfig(
        tasks=[task],
        model="counting",
        model_args={"wrong_every": 3},
        data=data,
        cache_dir=tmp_path / "c",
        output_path=tmp_path / "o",
        log_samples=True,
        include_path=[str(folder)],
        progress=False,
    )
    return run(cfg, load_plugins(include_paths=[folder]))


def write_example(dest: Path, data_dir: Path) -> Path:
    """The files of the docs' worked example under dest/colors_lmms, data paths pointed at data_dir."""
    text = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    files = re.findall(r"`colors_lmms/([^`]+)`:\n\n```\w*\n(.*?)```", section, flags=re.S)
    assert {name for name, _ in files} == {"_default_template_yaml", "colors_lmms.yaml", "utils.py"}
    folder = dest / "colors_lmms"
    folder.mkdir(parents=True)
    for name, body in files:
        (folder / name).write_text(body.replace("/data/colors", str(data_dir)), encoding="utf-8")
    return folder


def _utils(folder: Path):
    spec = importlib.util.spec_from_file_location("colors_lmms_utils_expected", folder / "utils.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def ported(tmp_path, colors_root, with_plugin, monkeypatch):
    data = colors_root / "colors"
    monkeypatch.setenv("COLORS_ROOT", str(data))
    folder = write_example(tmp_path, data)
    cfg = RunConfig(
        tasks=["colors_lmms_all"],
        model="counting",
        model_args={"wrong_every": 3},
        output_path=tmp_path / "out",
        log_samples=True,
        cache_dir=tmp_path / "cache",
        include_path=[str(folder)],
        progress=False,
    )
    out = run(cfg, load_plugins(include_paths=[folder]))
    return folder, out


def _lmms_yaml(task: str, data_file: str, rest: str) -> str:
    """An lmms-eval task YAML over colors-style rows in `data_file` (the json builder), then `rest`."""
    header = f"task: {task}\ndataset_path: json\ndataset_kwargs: {{data_files: {{test: {data_file}}}}}\n"
    return header + "test_split: test\ndoc_to_visual: video\ndoc_to_text: question\ndoc_to_target: answer\n" + rest


def test_worked_example_runs_and_matches_lmms_eval_semantics(ported):
    folder, out = ported
    res = out.results["task_results"]["colors_lmms"]
    recs = read_samples(out.samples_paths["colors_lmms"])
    assert res["n_samples"] == 24 and res["n_errors"] == 0
    utils = _utils(folder)
    per_sample = [utils.process_results(r["doc"], [r["raw"].strip()]) for r in recs]
    accuracy = sum(p["accuracy"] for p in per_sample) / len(per_sample)
    balanced = utils.family_balanced([p["family_balanced"] for p in per_sample])
    assert 0 < accuracy < 1
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(accuracy, abs=1e-9)
    assert res["metrics"]["family_balanced"]["value"] == pytest.approx(balanced, abs=1e-9)
    assert res["headline"] == "accuracy" and res["version"] == 0.0
    lo, hi = res["metrics"]["accuracy"]["ci"]
    assert lo is not None and lo <= res["metrics"]["accuracy"]["value"] <= hi
    # the task's own aggregation runs once, on all rows (as lmms-eval): no resampled CI, and the reason
    assert res["metrics"]["family_balanced"]["ci"] is None
    assert "runs once" in res["metrics"]["family_balanced"]["ci_note"]
    # the prompt is lmms-eval's doc_to_text with the `default` kwargs; the video is doc_to_visual's path
    first = recs[0]
    assert first["prompt"].endswith(f"{first['doc']['question']} Answer with one word.")
    assert Path(first["media"][0]["path"]).is_absolute()
    # the tag runs as a group
    assert out.results["group_results"]["colors_lmms_all"]["tasks"] == ["colors_lmms"]
    # generation_kwargs with lm-eval's default stop sequence
    gen = out.results["config"]["tasks"]["colors_lmms"]["config"]["generation"]
    assert gen == {"max_new_tokens": 8, "temperature": 0.0, "do_sample": False, "until": ["\n\n"]}


def test_lmms_group_config_with_aggregate_metric_list(tmp_path):
    from harness.config.schema import GroupConfig, parse_task_config

    raw = {
        "group": "g",
        "task": ["a", "b"],
        "aggregate_metric_list": [{"metric": "accuracy", "aggregation": "mean", "weight_by_size": True}],
        "metadata": [{"version": 2.0}],
    }
    cfg = parse_task_config(raw, "g.yaml")
    assert isinstance(cfg, GroupConfig) and cfg.aggregate == "sample_weighted" and cfg.version == 2.0
    raw["aggregate_metric_list"][0]["weight_by_size"] = False
    assert parse_task_config(raw, "g.yaml").aggregate == "task_mean"


def test_rescore_of_the_worked_example_reproduces_its_metrics(ported, tmp_path):
    from harness.engine.rescoring import rescore

    folder, out = ported
    again = rescore([out.samples_paths["colors_lmms"]], [str(folder)], tmp_path / "re")
    ours = out.results["task_results"]["colors_lmms"]["metrics"]
    assert again.results["task_results"]["colors_lmms"]["metrics"] == ours


def test_worked_example_through_the_cli(tmp_path, colors_root, plugin_site):
    data = colors_root / "colors"
    folder = write_example(tmp_path, data)
    env = harness_env(plugin_site, COLORS_ROOT=str(data))
    proc = run_harness(
        [
            "--include_path",
            str(folder),
            "--tasks",
            "colors_lmms",
            "--model",
            "oracle",
            "--limit",
            "6",
            "--cache_dir",
            str(tmp_path / "c"),
            "--output_path",
            str(tmp_path / "o"),
            "--no_progress",
        ],
        env,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(next((tmp_path / "o").rglob("results_*.json")).read_text())
    assert results["task_results"]["colors_lmms"]["metrics"]["accuracy"]["value"] == 1.0


def test_unsupported_lmms_keys_are_config_errors_naming_the_field(tmp_path, colors_root):
    from harness.config.schema import parse_task_config
    from harness.errors import ConfigError

    raw = {"task": "t", "dataset_path": "json", "output_type": "loglikelihood"}
    with pytest.raises(ConfigError, match="x.yaml: field 'output_type': 'loglikelihood' is not supported"):
        parse_task_config(raw, "x.yaml")
    with pytest.raises(ConfigError, match="num_fewshot"):
        parse_task_config({"task": "t", "dataset_path": "json", "num_fewshot": 5}, "x.yaml")


def test_dataset_rows_keep_the_root_rule(tmp_path, colors_root, with_plugin, monkeypatch):
    """doc_to_visual as a field name reads paths from rows: absolute ones are refused (counted errors). The
    rows come from --data, which replaces the URL the YAML's data_files name."""
    source = colors_root / "colors"
    rows = [json.loads(x) for x in (source / "test.jsonl").read_text().splitlines() if x.strip()][:4]
    data = tmp_path / "rows"
    for r in rows:
        (data / r["video"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / r["video"], data / r["video"])
    rows[0]["video"] = str(data / rows[0]["video"])  # absolute: refused
    (data / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    yaml_text = _lmms_yaml("rows_lmms", "https://example.invalid/rows.jsonl", "metric_list: [{metric: exact_match}]\n")
    folder = task_folder(tmp_path / "t", "t.yaml", yaml_text)
    cfg = RunConfig(
        tasks=["rows_lmms"],
        model="oracle",
        data=data,  # replaces the URL: the folder holds a file of the same name
        cache_dir=tmp_path / "c",
        include_path=[str(folder)],
        progress=False,
    )
    res = run(cfg, load_plugins(include_paths=[folder])).results["task_results"]["rows_lmms"]
    assert res["n_errors"] == 1 and res["n_scored"] == 3
    assert res["metrics"]["exact_match"]["value"] == 1.0


def test_lmms_eval_itself_gives_the_same_values(ported):
    """lmms-eval's TaskManager reads the same folder; its process_results and aggregations give our numbers."""
    if importlib.util.find_spec("lmms_eval") is None:
        pytest.skip("lmms-eval is not installed: make test-peers runs this file in lmms-eval's environment")
    from lmms_eval.tasks import TaskManager, get_task_dict

    folder, out = ported
    replies = {r["doc_id"]: r["raw"] for r in read_samples(out.samples_paths["colors_lmms"])}
    manager = TaskManager(include_path=str(folder), include_defaults=False)
    task = get_task_dict(["colors_lmms"], manager)["colors_lmms"]
    per: dict[str, list] = {}
    for i, doc in enumerate(task.test_docs()):
        for k, v in task.process_results(doc, [replies[str(i)]]).items():
            per.setdefault(k, []).append(v)
    theirs = {k: task.aggregation()[k](v) for k, v in per.items()}
    ours = out.results["task_results"]["colors_lmms"]["metrics"]
    assert theirs.keys() == {"accuracy", "family_balanced"}
    for k, v in theirs.items():
        assert ours[k]["value"] == pytest.approx(v, abs=1e-9)


def test_cluster_key_from_process_results(tmp_path, colors_root, with_plugin):
    """lmms-eval's cluster_key may name a field of process_results' dicts; the CI then clusters by it."""
    data = colors_root / "colors"
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "u.py").write_text(
        "def pr(doc, results):\n"
        "    ok = float(results[0].split()[-1].rstrip('.') == doc['answer'])\n"
        "    return {'acc': ok, 'detail': {'clip': doc['video'], 'ok': ok}}\n\n"
        "def mean_ok(items):\n"
        "    return sum(i['ok'] for i in items) / len(items)\n"
    )
    (folder / "t.yaml").write_text(
        _lmms_yaml(
            "clustered",
            str(data / "test.jsonl"),
            "process_results: !function u.pr\ncluster_key: clip\n"
            "metric_list: [{metric: acc, aggregation: mean}, {metric: detail, aggregation: !function u.mean_ok}]\n",
        )
    )
    out = _run_counting(tmp_path, folder, "clustered", data)
    recs = read_samples(out.samples_paths["clustered"])
    assert all(r["doc"]["clip"] == r["doc"]["video"] for r in recs)
    metrics = out.results["task_results"]["clustered"]["metrics"]
    m = metrics["acc"]
    assert m["ci"][0] is not None and m["ci"][0] <= m["value"] <= m["ci"][1]
    assert metrics["detail"]["value"] == m["value"] and metrics["detail"]["ci"] is None
    assert metrics["detail"]["ci_note"]


def test_native_build_request_hook_may_return_absolute_paths_inside_the_root(tmp_path, monkeypatch):
    """An absolute path the task's own hook returns is kept inside the dataset folder and refused outside it
    unless --allow_external_symlinks (issue 37: a TempCloze virtual clip's source); a relative one keeps the
    root rule."""
    from harness.api import MediaPathError, TaskConfig
    from harness.data.media import ALLOW_EXTERNAL_SYMLINKS
    from harness.data.task import Task

    (tmp_path / "hooks.py").write_text(
        "from harness.api import Message, TextPart, VideoPart, VideoRef\n"
        "def build(doc, task):\n"
        "    return [Message('user', [VideoPart(ref=VideoRef(path=doc['clip'])), TextPart('q')])]\n"
    )
    cfg = TaskConfig(task="t", version=1, hooks={"build_request": "hooks.py:build"})
    (tmp_path / "data").mkdir()
    task = Task(cfg, tmp_path, data=tmp_path / "data")
    inside = str(tmp_path / "data" / "clip.mp4")
    assert task.build_messages({"doc_id": "0", "clip": inside})[0].content[0].ref.path == inside
    with pytest.raises(MediaPathError, match="outside the dataset folder"):
        task.build_messages({"doc_id": "0", "clip": "/elsewhere/clip.mp4"})
    token = ALLOW_EXTERNAL_SYMLINKS.set(True)  # --allow_external_symlinks, as a run sets it
    try:
        msgs = task.build_messages({"doc_id": "0", "clip": "/elsewhere/clip.mp4"})
        assert msgs[0].content[0].ref.path == "/elsewhere/clip.mp4"
        with pytest.raises(MediaPathError, match="escapes"):
            task.build_messages({"doc_id": "1", "clip": "../outside.mp4"})
    finally:
        ALLOW_EXTERNAL_SYMLINKS.reset(token)


def test_string_doc_functions_follow_lm_eval(tmp_path):
    """Field names read the doc; other strings are Jinja templates rendered as lm-eval renders them."""
    from harness.config.schema import parse_task_config
    from harness.data.lmms_task import LmmsTask

    raw = {
        "task": "s",
        "dataset_path": "json",
        "description": "Watch {{ video }}.\n\n",
        "doc_to_text": "Q: {{ question }}\n",
        "doc_to_target": "{{ options }}",
    }
    task = LmmsTask(parse_task_config(raw, "s.yaml"), tmp_path)
    doc = {"doc_id": "0", "video": "a.mp4", "question": "why?", "options": "['x', 'y']"}
    assert task.render_prompt(doc) == "Watch a.mp4.\n\nQ: why?\n"
    assert task.target(doc) == ["x", "y"]  # a "[...]" result is read as a literal list
    raw.update(doc_to_text="question", doc_to_target="video")
    task = LmmsTask(parse_task_config(raw, "s.yaml"), tmp_path)
    assert task.render_prompt(doc).endswith("why?") and task.target(doc) == "a.mp4"


def test_registered_metric_without_process_results(tmp_path, colors_root, with_plugin):
    """lm-eval's path without process_results: a metric_list name that is a registered metric."""
    import harness_metrics as metrics

    data = colors_root / "colors"
    metric_list = "metric_list: [{metric: rouge_l}, {metric: exact_match}]\n"
    folder = task_folder(tmp_path / "t", "t.yaml", _lmms_yaml("caps", str(data / "test.jsonl"), metric_list))
    out = _run_counting(tmp_path, folder, "caps", data)
    recs = read_samples(out.samples_paths["caps"])
    res = out.results["task_results"]["caps"]["metrics"]
    preds = [r["raw"].strip() for r in recs]
    refs = [[r["target"]] for r in recs]
    assert res["rouge_l"]["value"] == pytest.approx(metrics.rouge_l(preds, refs), abs=1e-9)
    assert res["exact_match"]["value"] == 0.0  # "The answer is red." never equals "red"
