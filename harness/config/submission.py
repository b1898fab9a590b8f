"""A leaderboard submission (`submissions/NAME.json`) and what it may ask of the runner that evaluates it.

A submission is data from a stranger: `{"model": NAME, "model_args": "k=v,..." or {k: v}}` and nothing else.
`check_submission` lists every problem (one line each, naming the field): the file is small JSON of that
shape; the name is a safe file name; the model is registered (and on the leaderboard's list when its config
has one); every model_args key is one the model accepts (the same `check_model_args` a run uses); every value
is a scalar of plain characters; and no argument runs code or reaches what the runner holds
(`RISKY`: remote code, a local path, a URL, an environment variable) unless an `allow` rule of the
leaderboard's own config names the model and exactly those values (reviewed by a maintainer). The config's
form is documented in docs/reports.md ("A public leaderboard").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, StrictBool, ValidationError

from harness.config.run import parse_kv
from harness.config.yaml_files import read_yaml
from harness.contract.model import check_model_args
from harness.errors import ConfigError, UnknownNameError
from harness.files import open_regular
from harness.plugins.extras import missing_dependency
from harness.plugins.loading import PluginState

#: a submission file larger than this is refused unread
MAX_BYTES = 64 * 1024
#: the fields a submission may have
FIELDS = ("model", "model_args")
#: a submission's name and its model's name: a plain file name (no path, no leading dot, no shell syntax)
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
#: the folder of a leaderboard repository that submissions are added to (`--name submissions/NAME.json`)
FOLDER = "submissions"
#: a model_args key
SAFE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
#: a model_args string value: what hub ids, numbers, dtypes and URLs need; never a shell metacharacter
SAFE_VALUE = re.compile(r"[A-Za-z0-9._:/@+=%-]{0,300}")
#: the kinds of arguments refused unless a reviewed `allow` rule names them: what each reaches
RISKY = {
    "code": "runs the checkpoint's own code on the runner",
    "path": "reads the runner's disk",
    "url": "sends the benchmark's data (and any API key) to a server the submission names",
    "env": "reads an environment variable of the runner (and sends it as an API key)",
}
#: keys that are risky whatever their value (besides any value that is a path or a URL)
RISKY_KEYS = {"trust_remote_code": "code", "api_key_env": "env"}
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")
_FALSE = ("false", "0", "no", "off", "none", "")

Scalar = Union[StrictBool, int, float, str, None]


class AllowRule(BaseModel):
    """One reviewed exception: a submission of `model` whose model_args hold every one of `args` may use them."""

    model_config = ConfigDict(extra="forbid")
    model: str
    args: dict[str, Scalar]


class LeaderboardConfig(BaseModel):
    """The leaderboard's own config (`--allow FILE`): the models it takes and its reviewed exceptions."""

    model_config = ConfigDict(extra="forbid")
    models: Optional[list[str]] = None
    allow: list[AllowRule] = []


@dataclass
class Submission:
    """A submission as read: its name (the file's stem), model and model_args; `problems` lists what is wrong."""

    name: str
    model: str = ""
    model_args: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_policy(path: Optional[Path]) -> LeaderboardConfig:
    """The leaderboard config at `path` (YAML or JSON), or the default (every model, no exception)."""
    if path is None:
        return LeaderboardConfig()
    try:
        return LeaderboardConfig.model_validate(read_yaml(path))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "top level"
        raise ConfigError(
            f"{path}: field {where}: {first['msg']} (see docs/reports.md, 'A public leaderboard')"
        ) from None


def submission_name(path: Path, name: Optional[str]) -> tuple[str, list[str]]:
    """The submission's name (the stem of `name`, else of `path`) and the problems of that name: `name` is the
    file's path in the leaderboard repository and must be `submissions/NAME.json`; NAME a SAFE_NAME."""
    given = name if name is not None else path.name
    pure = PurePosixPath(given)
    stem = pure.name[: -len(".json")] if pure.name.endswith(".json") else pure.name
    problems = []
    parent_ok = name is None or str(pure.parent) == FOLDER
    if not parent_ok or not pure.name.endswith(".json") or not SAFE_NAME.fullmatch(stem) or "\\" in given:
        where = f"{FOLDER}/NAME.json" if name is not None else "NAME.json"
        problems.append(
            f"name {given!r}: must be {where}, NAME of letters, digits, '.', '_', '-' (at most 100, not "
            "starting with '.' or '-')"
        )
    return stem, problems


def read_submission(path: Path, name: Optional[str] = None) -> Submission:
    """The submission file at `path`; its problems of shape (size, JSON, fields, types) in `problems`."""
    stem, problems = submission_name(path, name)
    sub = Submission(name=stem, problems=problems)
    try:  # a regular file, never a FIFO that would block the check (harness.files)
        with open_regular(path, "submission JSON file", error=ConfigError) as f:
            raw = f.read(MAX_BYTES + 1)
    except ConfigError as exc:
        sub.problems.append(f"file: {exc}")
        return sub
    if len(raw) > MAX_BYTES:
        sub.problems.append(f"file: larger than {MAX_BYTES} bytes")
        return sub
    try:
        data = json.loads(raw, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        sub.problems.append(f"file: not a JSON object ({type(exc).__name__}: {str(exc)[:200]})")
        return sub
    if not isinstance(data, dict):
        sub.problems.append(
            f'file: a JSON {type(data).__name__}, not an object {{"model": ..., "model_args": ...}}'
        )
        return sub
    sub.problems += [
        f"field {k!r}: not a submission field (fields: {', '.join(FIELDS)})" for k in data if k not in FIELDS
    ]
    model = data.get("model")
    if not isinstance(model, str) or not SAFE_NAME.fullmatch(model):
        sub.problems.append(
            f"model {_show(model)}: must be a registered model's name (python -m harness ls models)"
        )
    else:
        sub.model = model
    sub.model_args = _model_args(data.get("model_args"), sub.problems)
    return sub


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        first = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"key {first!r} given twice")
    return out


def one_line(text: str) -> str:
    """`text` with every character that is not printable escaped (`\\n`, `\\x1b`): a problem line stays one
    line, so a submission's text can never start a line of its own (a CI log reads `::command::` lines)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _model_args(raw: Any, problems: list[str]) -> dict[str, Any]:
    """model_args as a dict of checked scalars (a `k=v,...` string is read as `--model_args` reads it)."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            raw = parse_kv(raw, "model_args")
        except ConfigError as exc:
            problems.append(str(exc))
            return {}
    if not isinstance(raw, dict):
        problems.append(f"model_args: a JSON {type(raw).__name__}, not 'k=v,...' or an object")
        return {}
    args = {}
    for key, value in raw.items():
        problem = _arg_problem(key, value)
        if problem:
            problems.append(problem)
        else:
            args[key] = value
    return args


def _arg_problem(key: Any, value: Any) -> Optional[str]:
    if not isinstance(key, str) or not SAFE_KEY.fullmatch(key):
        return f"model_args key {_show(key)}: not a plain argument name"
    if value is not None and not isinstance(value, (bool, int, float, str)):
        return (
            f"model_args.{key}: a JSON {type(value).__name__}; values are strings, numbers, booleans or null"
        )
    if (isinstance(value, float) and not math.isfinite(value)) or (isinstance(value, int) and abs(value) >= 2**63):
        return f"model_args.{key}={value}: not a finite number of at most 64 bits"
    if isinstance(value, str) and not SAFE_VALUE.fullmatch(value):
        return f"model_args.{key} {_show(value)}: only letters, digits and ._:/@+=%- (at most 300)"
    return None


def risk(key: str, value: Any) -> Optional[str]:
    """The RISKY kind of one argument (None: harmless): by key (remote code when true, an environment variable),
    else by value (a URL, or a local path: absolute, home, relative with '.', or deeper than a hub id)."""
    text = "" if value is None else str(value).strip()
    kind = RISKY_KEYS.get(key)
    if kind == "code":
        return None if text.lower() in _FALSE else kind
    if kind is not None:
        return kind
    if "://" in text:
        return "url"
    if (
        text.startswith(("/", "~", ".", "file:"))
        or ".." in text
        or ("/" in text and not _HUB_ID.fullmatch(text))
    ):
        return "path"
    return None


def check_submission(sub: Submission, state: PluginState, policy: LeaderboardConfig) -> list[str]:
    """Every problem of `sub` (shape problems first), one line each; [] when it may run."""
    problems = list(sub.problems)
    if not sub.model:
        return problems
    if not state.registry.has("model", sub.model):
        return problems + [f"model: {UnknownNameError('model', sub.model, state.registry.names('model'))}"]
    if policy.models is None and uses_hints(state, sub.model):
        return problems + [
            f"model '{sub.model}': a baseline that answers from the task's side (its target, prior or seed), "
            "not a submission; a leaderboard that ranks it lists it under models: in its config (--allow)"
        ]
    if policy.models is not None and sub.model not in policy.models:
        return problems + [
            f"model '{sub.model}': not one this leaderboard takes ({', '.join(policy.models)})"
        ]
    problems += _accepted_problems(sub, state)
    problems += _risk_problems(sub, policy)
    return problems


def uses_hints(state: PluginState, model: str) -> bool:
    """True for a model that answers from the task's side (`Model.uses_hints`: oracle, prior, random)."""
    try:
        factory = state.registry.get("model", model).load()
    except ModuleNotFoundError:
        return False  # its missing extra is the problem _accepted_problems names
    return bool(getattr(factory, "uses_hints", False))


def _accepted_problems(sub: Submission, state: PluginState) -> list[str]:
    """The run's own check (`check_model_args`) of the keys against the model's `accepted_args`."""
    what = f"model '{sub.model}'"
    try:
        factory = state.registry.get("model", sub.model).load()
    except ModuleNotFoundError as exc:
        return [str(missing_dependency(what, exc))]
    accepted = getattr(factory, "accepted_args", None)
    if accepted is None and sub.model_args:
        return [
            f"model_args: {what} does not declare the arguments it accepts, so none can be checked or passed"
        ]
    try:
        check_model_args(sub.model, sub.model_args, accepted)
    except ConfigError as exc:
        return [f"model_args: {exc}"]
    return []


def _risk_problems(sub: Submission, policy: LeaderboardConfig) -> list[str]:
    allowed = _allowed_keys(sub, policy.allow)
    problems = []
    for key, value in sub.model_args.items():
        kind = risk(key, value)
        if kind is not None and key not in allowed:
            problems.append(
                f"model_args.{key}={json.dumps(value)}: {RISKY[kind]}; refused unless the leaderboard's config (--allow) has "
                f"a reviewed rule for model '{sub.model}' with {key}: {json.dumps(value)}"
            )
    return problems


def _allowed_keys(sub: Submission, rules: list[AllowRule]) -> set[str]:
    """The keys that a rule matching `sub` (same model, every rule arg equal to the submission's) allows."""
    keys: set[str] = set()
    for rule in rules:
        if rule.model == sub.model and all(
            k in sub.model_args and _same(sub.model_args[k], v) for k, v in rule.args.items()
        ):
            keys |= set(rule.args)
    return keys


def _same(given: Any, reviewed: Any) -> bool:
    """Equal as `--model_args` would read them (true and "true", 1 and "1")."""
    return _text(given) == _text(reviewed)


def _text(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) or value is None else str(value).strip()


def canonical_args(args: Mapping[str, Any]) -> str:
    """model_args as one line of JSON, the form `--model_args` reads back exactly (no `,`/`=` ambiguity)."""
    return json.dumps(dict(args), separators=(",", ":"), sort_keys=True) if args else ""


def _show(value: Any) -> str:
    return "missing" if value is None else repr(value)[:120]
