"""docs/leaderboard-ci.yml, the workflow a leaderboard repository copies: valid, lint-clean (zizmor, actionlint),
and run step by step as GitHub expands it (tests/gha_steps.py) with `python -m harness` real on the test
plugin's small dataset: a good submission gets its report and the gate's verdict; each hostile one is refused
by the check step, naming the field, before any model runs, and no command it carries is executed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gha_steps import run_job

from conftest import REPO, harness_env, run_in

WORKFLOW = REPO / "docs" / "leaderboard-ci.yml"
API_ROOT = "https://api.github.com"
API = f"{API_ROOT}/repos/lb/board"
#: what every hostile submission would do if a shell ran its text: create this file in the workspace
MARK = "pwned"
GOOD = {"model": "random", "model_args": "seed=3"}

#: a stand-in for the GitHub CLI on the runner: answers `gh api` from a table, applies --jq with jq
FAKE_GH = """#!{python}
import json, os, subprocess, sys
args, jq, path = sys.argv[2:], None, None
while args:
    a = args.pop(0)
    if a == "--jq":
        jq = args.pop(0)
    elif a == "-H":
        args.pop(0)
    elif not a.startswith("-"):
        path = a
table = json.load(open(os.environ["FAKE_GH_TABLE"]))
body = table[path if path.startswith("https:") else "{api_root}/" + path]
with open(os.environ["FAKE_GH_TABLE"] + ".calls", "a") as log:
    log.write(path + "\\n")
if jq is None:
    sys.stdout.write(body if isinstance(body, str) else json.dumps(body))
else:
    sys.stdout.write(subprocess.run(["jq", "-r", jq], input=json.dumps(body), text=True,
                                    capture_output=True, check=True).stdout)
"""


def test_the_workflow_is_valid_yaml_and_no_run_script_expands_an_expression():
    spec = yaml.safe_load(WORKFLOW.read_text())
    steps = [s for job in spec["jobs"].values() for s in job["steps"]]
    assert all("${{" not in s.get("run", "") for s in steps), "values reach scripts only through env:"
    assert all(re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", s["uses"]) for s in steps if "uses" in s), "pinned"
    assert spec["permissions"] == {}, "nothing by default; each job asks for what it needs"
    assert spec["jobs"]["evaluate"]["permissions"] == {"contents": "read", "pull-requests": "read"}
    triggers = spec[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"workflow_dispatch", "push"}, "no trigger that runs a pull request's workflow"


def _lint(tool: str, *args: str) -> subprocess.CompletedProcess:
    """`tool ARGS` from this environment (the test extra), which actionlint searches for shellcheck too."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    for needed in (tool, "shellcheck"):
        assert shutil.which(needed, path=path), f"{needed} is not installed: pip install -e '.[test]' (the test extra)"
    env = {**os.environ, "PATH": path}
    return subprocess.run([shutil.which(tool, path=path), *args], capture_output=True, text=True, timeout=120, env=env)


def test_zizmor_and_actionlint_find_nothing(tmp_path):
    done = _lint("zizmor", "--offline", "--format", "json", str(WORKFLOW))
    assert done.returncode == 0 and json.loads(done.stdout) == [], done.stdout + done.stderr
    done = _lint("actionlint", "-no-color", str(WORKFLOW))
    assert done.returncode == 0 and done.stdout == "", done.stdout
    # the lint can fail: the shipped workflow's old pattern (a step output pasted into a script) is found, and
    # shellcheck runs on the scripts (an unquoted variable)
    bad = tmp_path / "injected.yml"
    text = WORKFLOW.read_text().replace('--model "$MODEL"', '--model "${{ steps.check.outputs.model }}"')
    bad.write_text(text.replace('--output_path "runs/$NAME"', "--output_path runs/$NAME"))
    done = _lint("zizmor", "--offline", "--format", "json", str(bad))
    assert "template-injection" in {finding["ident"] for finding in json.loads(done.stdout)}
    done = _lint("actionlint", "-no-color", str(bad))
    assert "SC2086" in done.stdout, done.stdout


@pytest.fixture
def runner(tmp_path, plugin_site, colors_root):
    """A workspace as checkout leaves it (the leaderboard's config, stored results), a PATH with setup-python's
    `python` and the fake `gh`, and a function running the evaluate job for one pull request's files."""
    if shutil.which("jq") is None:
        pytest.skip("jq (which gh's --jq stands for here) is not installed")
    ws = tmp_path / "ws"
    (ws / "results").mkdir(parents=True)
    (ws / "leaderboard.yml").write_text("models: [random, oracle, hf, openai]\nallow: []\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # a venv's python by path
    (bin_dir / "python").chmod(0o755)
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH.format(python=sys.executable, api_root=API_ROOT))
    gh.chmod(0o755)
    table = tmp_path / "gh.json"
    env = harness_env(plugin_site, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", FAKE_GH_TABLE=str(table))
    runner_env = {"DATA": str(colors_root), "TASKS": "colors_qa", "HARNESS_CACHE_DIR": str(tmp_path / "cache")}
    contexts = {
        "github": {"event_name": "workflow_dispatch", "repository": "lb/board", "sha": "f" * 40,
                   "ref": "refs/heads/main", "token": "ghs_fake", "event": {"before": "e" * 40}},
        "inputs": {"pr": "7"},
    }

    def run(files: dict[str, str], event: str = "workflow_dispatch"):
        listing = [{"filename": name, "status": "added", "contents_url": f"{API}/contents/{i}?ref=abc"}
                   for i, name in enumerate(files)]
        listing.append({"filename": "submissions/old.json", "status": "removed", "contents_url": "-"})
        answers = {f"{API}/pulls/7/files": listing, f"{API}/compare/{'e' * 40}...{'f' * 40}": {"files": listing}}
        contexts["github"]["event_name"] = event
        answers.update({f"{API}/contents/{i}?ref=abc": text for i, text in enumerate(files.values())})
        table.write_text(json.dumps(answers))
        steps = run_job(WORKFLOW, "evaluate", ws, contexts, env, runner_env, skip=("install",))
        return {s.name.split(" (")[0]: s for s in steps}

    run.workspace = ws
    return run


def _store(runner, tmp_path, colors_root, model: str, args: dict) -> None:
    """A stored run of `model` as the leaderboard keeps it: results/random-seed3/ with its samples."""
    stored = run_in(tmp_path / "stored", ["colors_qa"], model, colors_root, model_args=args, seed=0)
    shutil.copytree(Path(stored.results_path).parent, runner.workspace / "results" / "random-seed3")


def test_a_good_submission_gets_its_report_and_the_gates_verdict(runner, with_plugin, colors_root, tmp_path):
    _store(runner, tmp_path, colors_root, "random", {"seed": 3})
    steps = runner({"submissions/random-seed3.json": json.dumps(GOOD)})
    failed = {n: s.stderr[-2000:] for n, s in steps.items() if s.outcome == "failure"}
    assert not failed, failed
    assert steps["Check the submission"].outputs == {"name": "random-seed3", "model": "random",
                                                     "model_args": '{"seed":3}'}
    ws = runner.workspace
    assert (ws / "site" / "report" / "report.md").is_file() and (ws / "site" / "leaderboard.json").is_file()
    verdict = (ws / "compare.md").read_text()
    assert "0 regression(s)" in verdict and "colors_qa" in verdict
    assert "random" in (ws / "site" / "leaderboard.md").read_text()



@pytest.mark.slow
def test_a_regression_fails_the_gate_and_the_report_is_still_built(runner, with_plugin, colors_root, tmp_path):
    _store(runner, tmp_path, colors_root, "oracle", {})  # the stored score is 100 %: chance level regresses
    steps = runner({"submissions/random-seed3.json": json.dumps(GOOD)})
    gate = steps["Compare with the stored results"]
    assert gate.outcome == "failure" and gate.returncode == 4, gate.stderr
    assert "REGRESSION" in (runner.workspace / "compare.md").read_text()
    assert steps["Report and leaderboard"].outcome == "success"
    assert (runner.workspace / "site" / "report" / "report.md").is_file()


HOSTILE = {
    "name with a command": ({"submissions/x$(touch pwned).json": GOOD}, "name 'submissions/x$(touch pwned).json'"),
    "name with ; and backticks": ({"submissions/a;touch pwned;`touch pwned`.json": GOOD}, "name 'submissions/a;"),
    "a path in the name": ({"submissions/../../etc/x.json": GOOD}, "name 'submissions/../../etc/x.json'"),
    "a nested name": ({"submissions/deep/x.json": GOOD}, "name 'submissions/deep/x.json'"),
    "model with a command": ({"submissions/x.json": {"model": "random\";touch pwned;echo \""}}, "model 'random"),
    "model_args string": ({"submissions/x.json": {"model": "random", "model_args": 'x" ; touch pwned ; echo "'}},
                          "model_args: 'x\" ; touch pwned ; echo \"' is not of the form key=value"),
    "model_args value": ({"submissions/x.json": {"model": "random", "model_args": "seed=$(touch pwned)"}},
                         "model_args.seed '$(touch pwned)'"),
    "model_args key": ({"submissions/x.json": {"model": "random", "model_args": {"s;touch pwned": 1}}},
                       "model_args key 's;touch pwned'"),
    "every field": ({"submissions/`touch pwned`.json": {"model": "$(touch pwned)", "model_args": "a=`touch pwned`"}},
                    "name 'submissions/`touch pwned`.json'"),
    "an unknown model": ({"submissions/x.json": {"model": "gpt-9"}}, "unknown model 'gpt-9'"),
    "remote code": ({"submissions/x.json": {"model": "hf", "model_args": "pretrained=a/b,trust_remote_code=true"}},
                    "model_args.trust_remote_code=true: runs the checkpoint's own code"),
    "a local path": ({"submissions/x.json": {"model": "hf", "model_args": "pretrained=/data/weights/secret"}},
                     "model_args.pretrained=\"/data/weights/secret\": reads the runner's disk"),
    "not a submission": ({"submissions/x.json": "#!/bin/sh\ntouch pwned\n"}, "file: not a JSON object"),
}


#: the cases CI runs (each starts the harness once); the others are `slow` variants of the same refusals
FAST = ("every field", "a path in the name", "an unknown model", "remote code", "model_args string")


@pytest.mark.parametrize(
    "case", [c if c in FAST else pytest.param(c, marks=pytest.mark.slow) for c in sorted(HOSTILE)]
)
def test_a_hostile_submission_is_refused_naming_the_field_and_runs_nothing(runner, case):
    files, field = HOSTILE[case]
    steps = runner({name: body if isinstance(body, str) else json.dumps(body) for name, body in files.items()})
    check = steps["Check the submission"]
    assert check.outcome == "failure" and check.returncode == 2, check.stderr
    assert field in check.stderr, check.stderr
    assert all(line.startswith("error: submission ") for line in check.stderr.splitlines())
    assert steps["Evaluate"].outcome == "skipped" and not (runner.workspace / "runs").exists(), "no model ran"
    assert not list(runner.workspace.parent.rglob(MARK)), "an injected command ran"


@pytest.mark.parametrize("event", ["workflow_dispatch", "push"])
def test_a_change_of_two_files_is_refused_before_the_check(runner, event):
    files = {"submissions/a.json": json.dumps(GOOD), "submissions/b.json": json.dumps(GOOD)}
    steps = runner(files, event)
    fetch = steps["Fetch the submission as data"]
    assert fetch.outcome == "failure" and "exactly one file" in fetch.stdout
    assert steps["Check the submission"].outcome == "skipped" and steps["Evaluate"].outcome == "skipped"


def test_the_step_runner_would_show_an_injection(tmp_path):
    """What the hostile cases assert can fail: a script that pastes a value in with `${{ }}` runs its command."""
    workflow = tmp_path / "w.yml"
    workflow.write_text(
        "jobs:\n  j:\n    steps:\n"
        "      - run: echo \"${{ inputs.x }}\"\n"
        "      - env: {X: '${{ inputs.x }}'}\n        run: echo \"$X\" > safe.txt\n"
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    value = '"; touch pwned; echo "'
    steps = run_job(workflow, "j", ws, {"inputs": {"x": value}}, dict(os.environ), {})
    assert [s.outcome for s in steps] == ["success", "success"]
    assert (ws / MARK).exists(), "expanded into the script, the value ran as a command"
    assert (ws / "safe.txt").read_text() == value + "\n", "through env:, it stayed a value"
