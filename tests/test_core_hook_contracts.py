"""Every task hook has a typed contract (harness/contract/hooks.py), checked when the task loads and on the
values it returns: a broken hook is named before any model call, a wrong return type is a counted error, an
exception inside a hook is reported naming that hook, once."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from conftest import PLUGIN_PKG, run_in, task_folder
from harness.cli.main import main
from harness.errors import ConfigError, HookContractError
from harness.plugins.loading import load_plugins

COLORS = PLUGIN_PKG / "harness_colors" / "tasks"
YAML = """\
task: contract_qa
version: 1
dataset: {{data_key: colors, split: test, train_split: train}}
doc_id: id
media_field: video
target_field: answer
prior_key: family
answer_space: [red, green, blue, left, right]
prompt: {{template: prompt.jinja}}
frames: {{strategy: uniform, count: 2, max_side: 32}}
hooks: {{{hooks}}}
metrics:
  - {{name: accuracy, headline: true}}
"""


def contract_task(tmp_path: Path, hooks: str, code: str = "") -> Path:
    """An --include_path folder with the task `contract_qa` over the colors data, its `hooks:` and hooks.py."""
    folder = task_folder(tmp_path / "tasks", "contract_qa.yaml", YAML.format(hooks=hooks))
    shutil.copy(COLORS / "prompt.jinja", folder / "prompt.jinja")
    base = (COLORS / "hooks.py").read_text(encoding="utf-8")
    (folder / "hooks.py").write_text(base + "\n\n" + textwrap.dedent(code), encoding="utf-8")
    return folder


def samples(out, task: str = "contract_qa") -> list[dict]:
    return [json.loads(line) for line in out.samples_paths[task].read_text().splitlines()]


def test_a_misspelled_hook_is_refused_when_the_task_loads_before_any_data_or_model(tmp_path, capsys):
    """Before: reported at scoring time, after every model call, as one error per sample, message doubled."""
    folder = contract_task(tmp_path, "parse: hooks.py:parse, score: hooks.py:scor")
    missing = tmp_path / "no_data_here"  # the data would fail next: the hook check comes first
    argv = ["--tasks", "contract_qa", "--model", "oracle", "--data", str(missing), "--include_path", str(folder)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "field 'hooks.score'" in err and "has no function 'scor'" in err
    assert err.count("scor'") == 1 and "no_data_here" not in err


@pytest.mark.parametrize(
    ("hooks", "code", "expected"),
    [
        ("score: hooks.py:score1", "def score1(parsed):\n    return {}\n", "the harness calls it as score(parsed"),
        ("parse: hooks.py:parse_str", "def parse_str(response, doc) -> str:\n    return ''\n", "declares it returns str"),
        ("answer_space: hooks.py:space", "def space(docs) -> int:\n    return 1\n", "declares it returns int"),
        ("oracle_answer: hooks.py:parse", "", None),  # fits: two parameters, no declared return type
    ],
)
def test_a_hook_whose_signature_or_declared_type_does_not_fit_is_named(tmp_path, hooks, code, expected):
    folder = contract_task(tmp_path, hooks, code)
    state = load_plugins([folder])
    if expected is None:
        from harness.engine.runner import build_task

        build_task(state, "contract_qa")
        return
    with pytest.raises(HookContractError) as caught:
        run_in(tmp_path, ["contract_qa"], "oracle", tmp_path / "absent", state)
    message = str(caught.value)
    assert expected in message and "task 'contract_qa'" in message and f"field 'hooks.{hooks.split(':')[0]}'" in message
    assert caught.value.exit_code == 2


def test_a_parser_that_treats_the_response_as_a_string_is_named_once(tmp_path, colors_root):
    """The parse hook receives a Response: `re.search` on it raises; the samples name the parse hook (before:
    "the task's scorer")."""
    code = "import re\n\ndef parse_text(response, doc):\n    return Parsed(answer=re.search('[a-z]+', response).group(0))\n"
    folder = contract_task(tmp_path, "parse: hooks.py:parse_text", code)
    out = run_in(tmp_path, ["contract_qa"], "oracle", colors_root, load_plugins([folder]))
    notes = [s["parsed"]["note"] for s in samples(out)]
    assert notes and all("the parse hook 'hooks.py:parse_text' raised TypeError" in n for n in notes)
    assert all(n.count("raised") == 1 and "scorer" not in n for n in notes)


def test_a_wrong_return_type_is_a_counted_error_not_a_silent_answer(tmp_path, colors_root):
    """Before: a parser returning a string was taken as a valid answer."""
    code = "def parse_plain(response, doc):\n    return response.text\n"
    folder = contract_task(tmp_path, "parse: hooks.py:parse_plain", code)
    out = run_in(tmp_path, ["contract_qa"], "oracle", colors_root, load_plugins([folder]))
    rows = samples(out)
    assert rows and all(r["error"]["kind"] == "parse" and "the parse hook returned str" in r["error"]["message"] for r in rows)
    assert out.results["complete"] is False


def test_a_score_hook_that_always_raises_is_named_once_per_sample(tmp_path, colors_root):
    """Before: the message said the exception twice ("... (scoring an invalid answer, after: <the same>)")."""
    code = "def score_bad(parsed, target, doc):\n    raise KeyError('no_such_field')\n"
    folder = contract_task(tmp_path, "parse: hooks.py:parse, score: hooks.py:score_bad", code)
    out = run_in(tmp_path, ["contract_qa"], "oracle", colors_root, load_plugins([folder]))
    messages = [r["error"]["message"] for r in samples(out)]
    assert messages and all(m.count("no_such_field") == 1 and "the score hook 'hooks.py:score_bad'" in m for m in messages)


def test_an_oracle_answer_of_the_wrong_type_is_a_counted_error(tmp_path, colors_root):
    code = "def oracle_number(doc, target):\n    return 7\n"
    folder = contract_task(tmp_path, "parse: hooks.py:parse, oracle_answer: hooks.py:oracle_number", code)
    out = run_in(tmp_path, ["contract_qa"], "oracle", colors_root, load_plugins([folder]))
    errors = [r["error"] for r in samples(out)]
    assert errors and all(e and e["kind"] == "request" and "oracle_answer hook returned int" in e["message"] for e in errors)


def test_an_unresolvable_group_aggregate_hook_is_refused_up_front(tmp_path):
    folder = contract_task(tmp_path, "parse: hooks.py:parse")
    (folder / "group.yaml").write_text("group: contract_group\ntask: [contract_qa]\nhooks: {aggregate: hooks.py:nope}\n")
    with pytest.raises(ConfigError, match="group 'contract_group' field 'hooks.aggregate'.*has no function 'nope'"):
        run_in(tmp_path, ["contract_group"], "oracle", tmp_path / "absent", load_plugins([folder]))


def test_prior_on_tempcloze_with_a_training_split_answers_valid_letters(tmp_path):
    """Before: TempCloze's oracle_answer returns {"text", "structured"}; prior_table took str() of the dict, so
    every prior answer was the repr of a dict: 24 of 24 invalid, headline 0, exit 0."""
    from tempcloze_helpers import build_tempcloze

    root = build_tempcloze(tmp_path / "data", 2, virtual=True)
    built = root / "tempcloze"
    shutil.copytree(built, tmp_path / "train")
    shutil.move(tmp_path / "train", built / "train")  # the builder-made training split at ROOT/train
    out = run_in(tmp_path, ["tempcloze_all"], "prior", root)
    res = out.results["task_results"]["tempcloze_all"]
    assert res["n_samples"] > 0 and res["n_invalid"] == 0 and res["n_errors"] == 0
    assert all(s["parsed"]["valid"] for s in samples(out, "tempcloze_all"))


def test_an_exception_in_a_request_side_hook_is_a_request_error_naming_it(tmp_path, colors_root):
    code = "def target_bad(doc):\n    return doc['no_such_field']\n"
    folder = contract_task(tmp_path, "parse: hooks.py:parse, target: hooks.py:target_bad", code)
    out = run_in(tmp_path, ["contract_qa"], "oracle", colors_root, load_plugins([folder]))
    errors = [r["error"] for r in samples(out)]
    assert errors and all(e["kind"] == "request" and e["reason"] == "KeyError" for e in errors)
    assert all(e["message"].startswith("the target hook 'hooks.py:target_bad' raised KeyError") for e in errors)


def test_a_model_whose_generate_cannot_take_the_requests_is_refused_before_it_is_built(tmp_path, colors_root):
    from harness.api import Model
    from harness.plugins.registry import Entry

    built = []

    class NoRequests(Model):
        name = "no_requests"

        def __init__(self, **kw):
            built.append(kw)
            super().__init__(**kw)

        def generate(self):  # the evaluator calls generate(requests)
            return []

    state = load_plugins([COLORS])
    state.registry.add(Entry("model", "no_requests", NoRequests, plugin="test"))
    with pytest.raises(HookContractError, match=r"NoRequests.generate\(self\) cannot be called as generate"):
        run_in(tmp_path, ["colors_qa"], "no_requests", colors_root, state)
    assert built == []


def calibration_task(tmp_path: Path, code: str) -> Path:
    """contract_qa with `metadata.calibration: hooks.py:calib`, `calib` defined by `code`."""
    folder = contract_task(tmp_path, "parse: hooks.py:parse", code)
    yaml = folder / "contract_qa.yaml"
    yaml.write_text(yaml.read_text() + "metadata: {calibration: hooks.py:calib}\n")
    return folder


def test_a_calibration_hook_with_a_wrong_signature_is_named_before_anything_runs(tmp_path, capsys):
    """Before: judge-calibrate loaded the judge first (here: an unknown one) and a run never checked the hook."""
    folder = calibration_task(tmp_path, "def calib(judge):\n    return {}\n")
    judge = ["judge-calibrate", "--judge", "no_such_judge", "--task", "contract_qa", "--include_path", str(folder)]
    run = ["--tasks", "contract_qa", "--model", "oracle", "--data", str(tmp_path / "absent"), "--include_path", str(folder)]
    for argv in (judge, run):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"task 'contract_qa' ({folder / 'contract_qa.yaml'}) field 'metadata.calibration'" in err
        assert "hook 'hooks.py:calib'" in err and "calibration(judge" in err
        assert "no_such_judge" not in err and "absent" not in err


@pytest.mark.parametrize("value", ["['agreement', 1.0]", "{'cases': {1, 2}}"])
def test_a_calibration_report_that_is_no_json_object_is_exit_2_naming_the_hook(tmp_path, capsys, value):
    """Before: a list was printed as the report (exit 0); a set raised a TypeError traceback."""
    folder = calibration_task(tmp_path, f"def calib(judge, case=None):\n    return {value}\n")
    argv = ["judge-calibrate", "--judge", "rule", "--task", "contract_qa", "--include_path", str(folder)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "task 'contract_qa'" in err and "field 'metadata.calibration' hook 'hooks.py:calib'" in err


def group_with_metric_function(tmp_path: Path, code: str) -> Path:
    """contract_qa and the group `contract_group` whose aggregate_metric_list aggregates with hooks.py:agg."""
    folder = contract_task(tmp_path, "parse: hooks.py:parse", code)
    (folder / "group.yaml").write_text(
        "group: contract_group\ntask: [contract_qa]\n"
        "aggregate_metric_list:\n  - {metric: accuracy, aggregation: hooks.py:agg, weight_by_size: true}\n"
    )
    return folder


def test_a_group_metric_function_lm_eval_could_not_call_is_refused_up_front(tmp_path):
    """Before: resolved only when the results were assembled, after every model call."""
    folder = group_with_metric_function(tmp_path, "def agg(values):\n    return 0.0\n")
    with pytest.raises(HookContractError) as caught:
        run_in(tmp_path, ["contract_group"], "oracle", tmp_path / "absent", load_plugins([folder]))
    message = str(caught.value)
    assert f"group 'contract_group' ({folder / 'group.yaml'}) field 'aggregate_metric_list[0].aggregation'" in message
    assert "hook 'hooks.py:agg'" in message and "weight_by_size" in message


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("return '1.0'", "group metric 'accuracy': the aggregate_metric_list aggregation hook returned str"),
        ("raise ZeroDivisionError('no sizes')", "ZeroDivisionError: no sizes"),
    ],
)
def test_a_group_metric_function_that_fails_leaves_that_metric_empty_and_the_run_incomplete(
    tmp_path, colors_root, body, why
):
    """Before: float('1.0') made the string the group's value; then (a stricter check) the whole run stopped with
    exit 2 after every model call and wrote no results. Now, as for a task's own aggregation: the group's
    metric is null with the reason in `aggregation_errors`, the tasks' results are written, the run is
    incomplete (exit 5)."""
    folder = group_with_metric_function(tmp_path, f"def agg(values, sizes, weight_by_size):\n    {body}\n")
    out = run_in(tmp_path, ["contract_group"], "oracle", colors_root, load_plugins([folder]))
    group = out.results["group_results"]["contract_group"]
    assert group["metrics"]["accuracy"]["value"] is None
    (error,) = group["aggregation_errors"]
    assert error.startswith("metric 'accuracy': its aggregate_metric_list aggregation failed") and why in error
    assert out.results["task_results"]["contract_qa"]["metrics"]["accuracy"]["value"] == 1.0
    assert not out.results["complete"] and any(why in r for r in out.results["incomplete_reasons"])
