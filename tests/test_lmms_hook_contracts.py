"""lmms-eval's `!function` fields have the contracts lmms-eval calls them with (harness/contract/hooks.py,
`LMMS_HOOKS`): a function that cannot take lmms-eval's arguments is refused when the task loads (exit 2, naming
the task, its YAML, the field and the reference), and a value of the wrong type is a counted per-sample error
naming the function, never a prompt, visual list or score read silently out of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lmms_eval_compare import replay_plugin

from conftest import run_in
from harness.cli.main import main
from harness.frames.synthetic import write_marker_video
from harness.plugins.loading import load_plugins
from harness.results.writer import read_samples

UTILS = '''
import os


def doc_to_visual(doc):
    return [os.environ["LMMS_TEST_VIDEO"]]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return "Question " + doc["qid"] + "?"


def process_results(doc, results):
    return {"acc": float(results[0] == doc["answer"])}


def mean_acc(results, args=None):
    return sum(results) / len(results)


# the shapes real lmms-eval utils.py files use: no annotations, *args / **kwargs, defaults
def visual_any(*args, **kwargs):
    return [os.environ["LMMS_TEST_VIDEO"]]


def text_any(doc, *args, **kwargs):
    return "Question " + doc["qid"] + "?"


def results_kw(doc, results, **kwargs):
    return {"acc": float(results[0] == doc["answer"])}


class Upper:
    def __init__(self, **kwargs):
        pass

    def apply(self, resps, docs):
        return [[r.upper() for r in rs] for rs in resps]
'''

YAML = """
task: {task}
dataset_path: json
test_split: test
output_type: generate_until
doc_to_visual: !function utils.{visual}
doc_to_text: !function utils.{text}
doc_to_target: answer
process_results: !function utils.{results}
metric_list:
  - metric: acc
    aggregation: !function utils.{aggregation}
    higher_is_better: true
lmms_eval_specific_kwargs:
  default: {{pre_prompt: "", post_prompt: ""}}
{extra}
"""
ROWS = [{"qid": f"q{i}", "answer": "AB"[i % 2]} for i in range(4)]
REPLIES = ["A", "B", "A", "A"]


def lmms_task(tmp_path: Path, code: str = "", extra: str = "", **functions: str) -> Path:
    """An --include_path folder with the lmms-eval task `contract_lmms` (utils.py + `code`)."""
    names = {"visual": "doc_to_visual", "text": "doc_to_text", "results": "process_results", "aggregation": "mean_acc"}
    folder = tmp_path / "tasks"
    folder.mkdir(exist_ok=True)
    (folder / "utils.py").write_text(UTILS + "\n\n" + code, encoding="utf-8")
    yaml = YAML.format(task="contract_lmms", extra=extra, **{**names, **functions})
    (folder / "contract_lmms.yaml").write_text(yaml, encoding="utf-8")
    return folder


@pytest.fixture
def rows(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("LMMS_TEST_VIDEO", str(write_marker_video(tmp_path / "v.mp4", 4, 32, 24, fps=4)))
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def run_replies(tmp_path: Path, folder: Path, rows: Path):
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"contract_lmms": REPLIES}))
    state = load_plugins(include_paths=[folder], modules=[replay_plugin()])
    return run_in(tmp_path, ["contract_lmms"], "replay", rows, state, model_args={"replies": str(replies)},
                  include_path=[str(folder)], progress=False)  # fmt: skip


def records(out) -> list[dict]:
    return list(read_samples(out.samples_paths["contract_lmms"]))


@pytest.mark.parametrize(
    ("functions", "code", "field", "expected"),
    [
        ({"text": "text0"}, "def text0():\n    return ''\n", "doc_to_text", "the harness calls it as doc_to_text(doc"),
        ({"text": "text1"}, "def text1(doc):\n    return ''\n", "doc_to_text", "signature (doc)"),  # kwargs given
        ({"results": "pr1"}, "def pr1(doc):\n    return {}\n", "process_results", "process_results(doc"),
        ({"visual": "vis_str"}, "def vis_str(doc) -> str:\n    return ''\n", "doc_to_visual", "declares it returns str"),
        ({"aggregation": "agg0"}, "def agg0():\n    return 0.0\n", "metrics[0].aggregation", "aggregation(items"),
    ],
)
def test_a_function_lmms_eval_could_not_call_is_refused_when_the_task_loads(tmp_path, capsys, functions, code, field, expected):
    """Before: the task loaded; each sample (or the aggregation) failed later with a TypeError."""
    folder = lmms_task(tmp_path, code, **functions)
    ref = next(iter(functions.values()))
    argv = ["--tasks", "contract_lmms", "--model", "oracle", "--data", str(tmp_path / "absent"),
            "--include_path", str(folder)]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"task 'contract_lmms' ({folder / 'contract_lmms.yaml'})" in err and f"field '{field}'" in err
    assert f"utils.py:{ref}'" in err and expected in err and "absent" not in err


def test_a_filter_class_without_lm_evals_apply_is_refused_when_the_task_loads(tmp_path, capsys):
    code = "class NoApply:\n    def __init__(self, **kwargs):\n        pass\n"
    extra = "filter_list:\n  - name: own\n    filter:\n      - function: !function utils.NoApply\n"
    folder = lmms_task(tmp_path, code, extra)
    argv = ["--tasks", "contract_lmms", "--model", "oracle", "--data", str(tmp_path / "absent"), "--include_path", str(folder)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "field 'filter_list[0].filter[0].function'" in err and "utils.py:NoApply'" in err and "apply(resps" in err


def test_real_lmms_eval_shapes_load_and_score(tmp_path, rows):
    """*args / **kwargs, defaults, an aggregation taking `args`, a filter class: all fit their contracts."""
    extra = "filter_list:\n  - name: up\n    filter:\n      - function: !function utils.Upper\n"
    folder = lmms_task(tmp_path, "", extra, visual="visual_any", text="text_any", results="results_kw")
    out = run_replies(tmp_path, folder, rows)
    res = out.results["task_results"]["contract_lmms"]
    assert res["n_errors"] == 0 and res["metrics"]["acc,up"]["value"] == 0.75  # 3 of 4 replies right


@pytest.mark.parametrize(
    ("functions", "code", "kind", "message"),
    [  # before: list("path") read as one visual per character; the list itself as the prompt; the pairs as scores
        ({"visual": "vis_path"}, "def vis_path(doc):\n    return os.environ['LMMS_TEST_VIDEO']\n", "request",
         "doc_to_visual hook returned str"),
        ({"text": "text_list"}, "def text_list(doc, kw):\n    return ['Question?']\n", "request",
         "doc_to_text hook returned list"),
        ({"results": "pr_pairs"}, "def pr_pairs(doc, results):\n    return [('acc', 1.0)]\n", "score",
         "process_results hook returned list"),
    ],
)  # fmt: skip
def test_a_value_of_the_wrong_type_is_a_counted_error_naming_the_function(tmp_path, rows, functions, code, kind, message):
    folder = lmms_task(tmp_path, code, **functions)
    out = run_replies(tmp_path, folder, rows)
    errors = [r["error"] for r in records(out)]
    assert len(errors) == len(ROWS) and all(e and e["kind"] == kind and message in e["message"] for e in errors)
    res = out.results["task_results"]["contract_lmms"]
    assert res["n_errors"] == len(ROWS) and out.results["complete"] is False


def test_an_aggregation_that_returns_no_number_is_a_counted_error(tmp_path, rows):
    """Before: float("0.5") took the string as the metric's value."""
    folder = lmms_task(tmp_path, "def agg_str(results):\n    return '0.5'\n", aggregation="agg_str")
    out = run_replies(tmp_path, folder, rows)
    res = out.results["task_results"]["contract_lmms"]
    assert res["metrics"]["acc"]["value"] is None and not out.results["complete"]
    assert "aggregation hook returned str '0.5'" in res["aggregation_errors"][0]


def test_a_filter_whose_apply_returns_a_string_is_a_counted_parse_error(tmp_path, rows):
    """Before: the string's first character was the filtered answer."""
    code = "class Joined:\n    def __init__(self, **kw):\n        pass\n\n    def apply(self, resps, docs):\n        return 'AB'\n"
    extra = "filter_list:\n  - name: j\n    filter:\n      - function: !function utils.Joined\n"
    folder = lmms_task(tmp_path, code, extra)
    out = run_replies(tmp_path, folder, rows)
    errors = [r["error"] for r in records(out)]
    assert errors and all(e and e["kind"] == "parse" and "filter's apply hook returned str" in e["message"] for e in errors)
