"""A GitHub Actions job's `run:` steps executed here as the runner executes them, for the workflow tests.

What GitHub does and this does too: `${{ expr }}` in a step's `env:` (and `run:`, `if:`) is replaced by the
expression's value before the shell starts (the step's script is written to a file and run with
`bash --noprofile --norc -eo pipefail FILE`, the `shell: bash` command), `GITHUB_OUTPUT` lines become
`steps.<id>.outputs`, a step runs when its `if:` holds (default `success()`), and a failed step fails the
job. `uses:` steps are skipped (the test prepares what checkout and setup-python would), as are the step ids
the caller names (the install step: the harness here is this checkout). The expression language covered is
what workflows use in practice: contexts by dotted name, 'strings', numbers, ==, !=, !, &&, ||, parentheses
and always()/success()/failure()/cancelled().
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_TOKEN = re.compile(r"\s*(?:(\|\||&&|==|!=|!|\(|\))|'((?:[^']|'')*)'|(\d+(?:\.\d+)?)|([A-Za-z_][\w.-]*(?:\(\))?))")
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


@dataclass
class StepResult:
    """One step as it ran: its name, outcome (success, failure, skipped), exit code and output."""

    name: str
    outcome: str
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


class _Expression:
    """A recursive-descent evaluator of one `${{ }}` expression against the contexts."""

    def __init__(self, text: str, contexts: dict[str, Any], failed: bool) -> None:
        self.tokens = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            assert m, f"expression not understood at {text[pos:]!r}"
            self.tokens.append(m.groups())
            pos = m.end()
        self.i, self.contexts, self.failed = 0, contexts, failed

    def value(self) -> Any:
        out = self._or()
        assert self.i == len(self.tokens), "trailing tokens"
        return out

    def _peek(self) -> Any:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def _or(self) -> Any:
        left = self._and()
        while self._peek() == "||":
            self.i += 1
            right = self._and()
            left = left or right
        return left

    def _and(self) -> Any:
        left = self._compare()
        while self._peek() == "&&":
            self.i += 1
            right = self._compare()
            left = left and right
        return left

    def _compare(self) -> Any:
        left = self._unary()
        while self._peek() in ("==", "!="):
            op = self.tokens[self.i][0]
            self.i += 1
            right = self._unary()
            left = (str(left) == str(right)) == (op == "==")
        return left

    def _unary(self) -> Any:
        if self._peek() == "!":
            self.i += 1
            return not self._unary()
        if self._peek() == "(":
            self.i += 1
            out = self._or()
            self.i += 1
            return out
        op, string, number, name = self.tokens[self.i]
        self.i += 1
        if string is not None:
            return string.replace("''", "'")
        if number is not None:
            return number
        functions = {"always()": True, "success()": not self.failed, "failure()": self.failed, "cancelled()": False}
        if name in functions:
            return functions[name]
        value: Any = self.contexts
        for part in name.split("."):
            value = value.get(part, "") if isinstance(value, dict) else ""
        return value


def expand(text: str, contexts: dict[str, Any], failed: bool = False) -> str:
    """`text` with every `${{ expr }}` replaced by its value, as the runner does before a step starts."""

    def one(m: re.Match) -> str:
        value = _Expression(m.group(1), contexts, failed).value()
        return "" if value is None else (str(value).lower() if isinstance(value, bool) else str(value))

    return _EXPR.sub(one, text)


def holds(condition: Any, contexts: dict[str, Any], failed: bool) -> bool:
    """A step's `if:` (default `success()`), with or without `${{ }}` around it."""
    text = str(condition if condition is not None else "success()").strip()
    inner = _EXPR.fullmatch(text)
    text = inner.group(1) if inner else text
    if not re.search(r"\b(always|success|failure|cancelled)\(\)", text):
        text = f"success() && ({text})"
    return bool(_Expression(text, contexts, failed).value())


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: `key=value` lines and `key<<DELIMITER` blocks."""
    out: dict[str, str] = {}
    lines = iter(path.read_text().splitlines()) if path.exists() else iter(())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            out[key] = "\n".join(block)
        elif "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
    return out


def run_job(
    workflow: Path,
    job: str,
    workspace: Path,
    contexts: dict[str, Any],
    env: dict[str, str],
    runner_env: dict[str, str],
    skip: tuple = (),
) -> list[StepResult]:
    """Run `job`'s steps of `workflow` in `workspace` with the contexts given, in environment `env` plus the
    job's `env:`, whose runner-specific values (the data root, the cache) `runner_env` replaces."""
    spec = yaml.safe_load(workflow.read_text())["jobs"][job]
    temp = workspace.parent / "runner_temp"
    temp.mkdir(exist_ok=True)
    contexts = {**contexts, "steps": {}, "runner": {"temp": str(temp)}}
    job_env = {k: expand(str(v), contexts) for k, v in (spec.get("env") or {}).items()}
    base = {**env, **job_env, **runner_env, "RUNNER_TEMP": str(temp), "GITHUB_WORKSPACE": str(workspace)}
    results: list[StepResult] = []
    failed = False
    for index, step in enumerate(spec["steps"]):
        name = step.get("name") or step.get("uses") or f"step {index}"
        if "uses" in step or step.get("id") in skip or not holds(step.get("if"), contexts, failed):
            results.append(StepResult(name, "skipped"))
            continue
        result = _run_step(step, name, index, base, contexts, temp)
        results.append(result)
        if step.get("id"):
            contexts["steps"][step["id"]] = {"outputs": result.outputs, "outcome": result.outcome}
        failed = failed or result.outcome == "failure"
        (temp / "summary.md").touch()
    return results


def _run_step(step: dict, name: str, index: int, base: dict, contexts: dict, temp: Path) -> StepResult:
    output, summary = temp / f"output_{index}", temp / "summary.md"
    output.write_text("")
    step_env = {k: expand(str(v), contexts) for k, v in (step.get("env") or {}).items()}
    script = temp / f"step_{index}.sh"
    script.write_text(expand(step["run"], contexts))
    env = {**base, **step_env, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=env["GITHUB_WORKSPACE"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    outcome = "success" if done.returncode == 0 else "failure"
    return StepResult(name, outcome, done.returncode, done.stdout, done.stderr, read_outputs(output))
