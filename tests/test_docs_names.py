"""Every task, model and judge name the README and docs use works: `--tasks X`, `--model X` and `--judge X`
in a command, `ls WHAT`, and a backticked benchmark name (`cyclist_l1`, `tempcloze_edge`) is registered
(a task, group, model, judge or builder), or the doc defines it itself in an example (`task: NAME`,
`register("NAME", ...)`). Placeholders (NAME, MODEL, A,B, ...) are skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.cli.ls_cmd import WHAT
from harness.engine.judging import RULE_JUDGE
from harness.plugins.loading import load_plugins

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
FLAG = re.compile(r"--(tasks|model|judge)[ =]+([A-Za-z0-9_.,/:-]+)")
LS = re.compile(r"harness ls ([a-z|]+)")
BACKTICKED = re.compile(r"`((?:cyclist|tempcloze|rvtbench)_[a-z0-9_]+)`")
DEFINED = re.compile(r"""(?:^task: |register\(["'])([A-Za-z0-9_]+)""", re.MULTILINE)


def _placeholder(name: str) -> bool:
    return name.isupper() or "..." in name or name in {"A", "B"} or not re.search(r"[a-z]", name)


@pytest.fixture(scope="module")
def known() -> dict[str, set[str]]:
    reg = load_plugins().registry
    models, judges = set(reg.names("model")), set(reg.names("judge"))
    return {
        "tasks": set(reg.names("task")),
        "model": models,
        "judge": {RULE_JUDGE} | judges | models,
        "any": set(reg.names("task")) | models | judges | set(reg.names("builder")),
    }


def _uses(text: str) -> list[tuple[str, str]]:
    out = [(kind, name) for kind, value in FLAG.findall(text) for name in value.split(",") if name]
    out += [("any", name) for name in BACKTICKED.findall(text)]
    return [(k, n.rstrip(".:")) for k, n in out if not _placeholder(n.rstrip(".:"))]


def test_every_name_the_docs_use_is_registered(known):
    problems = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        defined = set(DEFINED.findall(text))
        for kind, name in _uses(text):
            if name not in known[kind] and name not in defined:
                problems.append(f"{doc.relative_to(REPO)}: {kind} name '{name}' is not registered")
        for what in LS.findall(text):
            problems += [f"{doc.relative_to(REPO)}: `ls {w}` is not a listing" for w in what.split("|") if w not in WHAT]
    assert not problems, "\n".join(problems)


def test_the_doc_checker_sees_the_names_it_should():
    uses = _uses("run `--tasks cyclist_l1,tempcloze_hard --model llava_video_7b --judge NAME` or `tempcloze_edge`")
    assert uses == [("tasks", "cyclist_l1"), ("tasks", "tempcloze_hard"), ("model", "llava_video_7b"),
                    ("any", "tempcloze_edge")]  # fmt: skip
