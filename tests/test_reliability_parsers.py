"""Property-based: arbitrary strings and arbitrary JSON fed to every built-in task's parser and scorer.

No exception may escape; every reply is a valid parse or a counted invalid answer, and scores are numbers
(or None for "not applicable"). Docs come from the builders' demo datasets, so every answer type is covered.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.api import Parsed, Response
from harness.engine.runner import build_task
from harness.plugins.loading import load_plugins

N_EXAMPLES = 150
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
replies = st.one_of(
    st.text(max_size=300),
    json_values.map(json.dumps),
    json_values.map(lambda v: f"```json\n{json.dumps(v)}\n```"),
    st.sampled_from(
        ["", "A", "{", "}{", "yes and no", "I cannot tell", "```", '{"answer": null}', "3.5e308"]
    ),
    st.lists(
        st.sampled_from(["yes", "no", "red", "A", "B", "{", "}", '"answer":', "2", "sphere", ","]),
        max_size=12,
    ).map(" ".join),
)


@pytest.fixture(scope="module")
def task_docs(tmp_path_factory) -> list[tuple[str, object, list[dict]]]:
    """(task name, Task, a few docs of distinct kinds) for every built-in task with demo data."""
    state = load_plugins()
    out = []
    root = tmp_path_factory.mktemp("demos")
    for entry in state.registry.entries("builder"):
        if "." in entry.name:
            continue
        for ds in entry.load()().demo(root / entry.name, 0):
            for name in ds.tasks:
                task = (
                    build_task(state, name)
                    if not state.registry.get("task", name).extra.get("group")
                    else None
                )
                names = [name] if task else _members(state, name)
                for member in names:
                    t = build_task(state, member)
                    docs = t.load_docs(ds.data_dir)
                    kinds: dict[str, dict] = {}
                    for d in docs:
                        kinds.setdefault(str(d.get("family", d.get("dimension", ""))), d)
                    out.append((member, t, list(kinds.values())[:12]))
    assert out, "no builder demo offered tasks"
    return out


def _members(state, group):
    from harness.engine.runner import expand_tasks

    return expand_tasks(state, [group])[0]


def _check(task, doc, response):
    parsed = task.parse(response, doc)
    assert isinstance(parsed, Parsed)
    assert isinstance(parsed.valid, bool)
    scores = task.score(parsed, task.target(doc), doc)
    for key, value in scores.items():
        assert value is None or (isinstance(value, (int, float)) and math.isfinite(value)), (key, value)
    json.dumps(parsed.to_json(), default=str)


@settings(max_examples=N_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=replies, structured=st.none() | st.dictionaries(st.text(max_size=8), json_values, max_size=4))
def test_every_task_parser_survives_arbitrary_replies(task_docs, text, structured):
    for _name, task, docs in task_docs:
        for doc in docs:
            _check(task, doc, Response(text=text, structured=structured))


def test_fuzzed_tasks_cover_every_benchmark_with_a_demo(task_docs):
    names = {n for n, _, _ in task_docs}
    assert {
        "cyclist_l1",
        "cyclist_caption_l1",
        "tempcloze_all",
        "rvtbench_seg",
        "rvtbench_grounding",
    } <= names
