"""`python -m harness submission check`: a leaderboard submission is refused, one line per problem naming the
field, exit 2, before anything runs it; a good one passes and hands its checked values to the workflow."""

from __future__ import annotations

import json

import pytest

from harness.cli.main import main

#: the leaderboard config most tests check under: the baselines are on this leaderboard's list
MODELS = "models: [random, oracle, hf, openai, internvideo2_5_8b]\n"


def check(tmp_path, capsys, content, *flags, file="sub.json"):
    path = tmp_path / file
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    if "--allow" not in flags and "--no-config" not in flags:
        (tmp_path / "leaderboard.yml").write_text(MODELS)
        flags = (*flags, "--allow", str(tmp_path / "leaderboard.yml"))
    flags = tuple(f for f in flags if f != "--no-config")
    code = main(["submission", "check", str(path), *flags])
    out = capsys.readouterr()
    return code, out.out, [line for line in out.err.splitlines() if line]


def test_a_good_submission_passes_and_writes_its_checked_values_for_the_workflow(tmp_path, capsys):
    out_file = tmp_path / "github_output"
    sub = {"model": "random", "model_args": "seed=3,max_frames=8"}
    flags = ("--name", "submissions/my-model_v1.2.json", "--github-output", str(out_file))
    code, out, err = check(tmp_path, capsys, sub, *flags)
    assert (code, err) == (0, [])
    assert "my-model_v1.2" in out and "ok" in out
    assert out_file.read_text().splitlines() == [
        "name=my-model_v1.2",
        "model=random",
        'model_args={"max_frames":8,"seed":3}',
    ]


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ({"model": "rand0m"}, "unknown model 'rand0m'; did you mean 'random'"),
        ({"model": "random; touch /tmp/x"}, "model 'random; touch /tmp/x'"),
        ({"model": ["random"]}, "model ['random']"),
        ({}, "model missing"),
        ({"model": "random", "model_args": "seed=1,colour=red"}, "unknown model_args colour"),
        ({"model": "random", "model_args": 'x" ; touch /tmp/pwned ; echo "'}, "is not of the form key=value"),
        ({"model": "random", "model_args": {"seed": "1;touch x"}}, "model_args.seed '1;touch x'"),
        ({"model": "random", "model_args": {"seed": "$(touch x)"}}, "model_args.seed '$(touch x)'"),
        ({"model": "random", "model_args": {"seed": [1]}}, "model_args.seed: a JSON list"),
        ({"model": "random", "model_args": {"se ed": 1}}, "model_args key 'se ed'"),
        ({"model": "random", "model_args": 5}, "model_args: a JSON int"),
        ({"model": "random", "run": "curl x | sh"}, "field 'run': not a submission field"),
        ({"model": "oracle", "model_args": {"seed": 1}}, "accepted: none"),
        ('{"model": "random", "model": "hf"}', "key 'model' given twice"),
        ('{"model": "random", "model_args": ' + "[" * 20_000 + "]" * 20_000 + "}", "RecursionError"),
        ({"model": "random", "model_args": "seed=NaN"}, "model_args.seed=nan: not a finite number"),
        ('{"model": "random", "model_args": {"seed": 1e999}}', "model_args.seed=inf: not a finite number"),
        ({"model": "random", "model_args": {"seed": 2**70}}, "not a finite number of at most 64 bits"),
        ("[1, 2]", "a JSON list, not an object"),
        ("{not json", "not a JSON object"),
        ({"model": "hf", "model_args": "pretrained=/data/weights/x"}, "model_args.pretrained=\"/data/weights/x\": reads the runner's disk"),
        ({"model": "hf", "model_args": "pretrained=a/b/c"}, "model_args.pretrained=\"a/b/c\": reads"),
        ({"model": "hf", "model_args": "pretrained=../x"}, "model_args.pretrained=\"../x\": reads"),
        ({"model": "hf", "model_args": "trust_remote_code=true"}, "model_args.trust_remote_code=true: runs"),
        ({"model": "openai", "model_args": "model=m,video_dir=/tmp/x"}, "model_args.video_dir=\"/tmp/x\": reads"),
        ({"model": "openai", "model_args": "model=m,base_url=http://10.0.0.1/v1"}, "model_args.base_url=\"http://10.0.0.1/v1\": sends"),
        ({"model": "openai", "model_args": "model=m,api_key_env=AWS_SECRET"}, "model_args.api_key_env=\"AWS_SECRET\": reads an environment"),
    ],
)
def test_each_problem_is_one_line_naming_the_field_and_exit_2(tmp_path, capsys, content, field):
    code, out, err = check(tmp_path, capsys, content)
    assert code == 2 and out == ""
    assert len(err) == 1, err
    assert field in err[0] and err[0].startswith("error: submission "), err


def test_every_problem_of_a_submission_is_listed(tmp_path, capsys):
    sub = {"model": "hf", "model_args": {"pretrained": "/etc", "trust_remote_code": True, "nope": 1}, "x": 1}
    code, _, err = check(tmp_path, capsys, sub)
    assert code == 2
    assert [line.split(": ")[2].split(" ")[0] for line in err] == [
        "field",
        "model_args",
        'model_args.pretrained="/etc"',
        "model_args.trust_remote_code=true",
    ], err


@pytest.mark.parametrize(
    "name", ["submissions/../x.json", "submissions/a/b.json", "other/x.json", "submissions/.x.json",
             "submissions/x;touch y.json", "submissions/x.yaml", "submissions/$(id).json", "/abs/x.json"]
)
def test_the_name_must_be_a_safe_file_name_in_submissions(tmp_path, capsys, name):
    code, _, err = check(tmp_path, capsys, {"model": "random"}, "--name", name)
    assert code == 2 and len(err) == 1 and f"name {name!r}" in err[0], err


def test_a_file_name_with_shell_syntax_is_refused_without_name(tmp_path, capsys):
    code, _, err = check(tmp_path, capsys, {"model": "random"}, file="a$(id).json")
    assert code == 2 and "name 'a$(id).json'" in err[0]


def test_remote_code_runs_only_for_the_reviewed_model_and_values(tmp_path, capsys):
    allow = tmp_path / "leaderboard.yml"
    allow.write_text(
        "models: [hf, internvideo2_5_8b, random]\n"
        "allow:\n"
        "  - model: internvideo2_5_8b\n"
        "    args: {pretrained: OpenGVLab/InternVideo2_5_Chat_8B, revision: abc123, trust_remote_code: true}\n"
    )
    reviewed = "pretrained=OpenGVLab/InternVideo2_5_Chat_8B,revision=abc123,trust_remote_code=true"
    code, _, err = check(tmp_path, capsys, {"model": "internvideo2_5_8b", "model_args": reviewed}, "--allow", str(allow))
    assert (code, err) == (0, [])
    other_revision = reviewed.replace("abc123", "def456")
    code, _, err = check(tmp_path, capsys, {"model": "internvideo2_5_8b", "model_args": other_revision}, "--allow", str(allow))
    assert code == 2 and len(err) == 1 and "trust_remote_code=true: runs" in err[0]
    code, _, err = check(tmp_path, capsys, {"model": "hf", "model_args": reviewed}, "--allow", str(allow))
    assert code == 2 and "trust_remote_code" in err[0], "the rule is for internvideo2_5_8b only"
    code, _, err = check(tmp_path, capsys, {"model": "oracle"}, "--allow", str(allow))
    assert code == 2 and "not one this leaderboard takes" in err[0]


def test_a_broken_leaderboard_config_is_one_line_naming_its_field(tmp_path, capsys):
    allow = tmp_path / "leaderboard.yml"
    allow.write_text("allow:\n  - model: hf\n    args: {trust_remote_code: [1]}\n")
    code, _, err = check(tmp_path, capsys, {"model": "random"}, "--allow", str(allow))
    assert code == 2 and len(err) == 1 and "field allow.0.args.trust_remote_code" in err[0], err


@pytest.mark.parametrize("model", ["oracle", "prior", "random"])
def test_a_baseline_that_answers_from_the_tasks_side_is_not_a_submission_unless_listed(tmp_path, capsys, model):
    code, _, err = check(tmp_path, capsys, {"model": model}, "--no-config")
    assert code == 2 and len(err) == 1 and "answers from the task's side" in err[0], err
    code, _, err = check(tmp_path, capsys, {"model": model}, "--allow", str(_config(tmp_path, f"models: [{model}]")))
    assert (code, err) == (0, [])


def test_a_submission_file_too_large_is_refused_unread(tmp_path, capsys):
    code, _, err = check(tmp_path, capsys, json.dumps({"model": "random", "pad": "x" * 70_000}))
    assert code == 2 and err == [f"error: submission {tmp_path / 'sub.json'}: file: larger than 65536 bytes"]


def _config(tmp_path, text):
    path = tmp_path / "board.yml"
    path.write_text(text + "\n")
    return path


def test_a_problem_line_stays_one_line_whatever_the_submission_holds(tmp_path, capsys):
    sub = {"model": "random", "model_args": "seed=1\n::error::forged,x\r\n::add-mask::y"}
    code, _, err = check(tmp_path, capsys, sub, "--name", "submissions/a\n::warning::b.json")
    assert code == 2 and len(err) == 2, err
    assert not any(line.startswith("::") for line in err)
    assert "\\n::warning::b.json" in err[0] and "\\r\\n::add-mask::y" in err[1], err
    sub = {"model": "random", "model_args": {"seed": "1\n::error::forged"}}
    code, _, err = check(tmp_path, capsys, sub)
    assert code == 2 and len(err) == 1 and "'1\\n::error::forged'" in err[0], err
