"""The parse step with a task's filter pipelines (harness/data/filters.py): the reply filtered by each pipeline,
each filtered answer parsed and scored by the task, each metric keyed `metric,pipeline`.

The raw reply (unstripped, as lm-eval hands `resps` to its filters) goes into every pipeline; a pipeline's value
is parsed as the reply's text (a list: its first item, lm-eval's `take_first`; None: ""). The samples file keeps
the raw reply in `raw` and every pipeline's filtered value in `parsed.extra.filtered`; `parsed` itself is the
first pipeline's. `--rescore` filters the recorded raw reply again, so it gives the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from harness.config.filter_list import metric_key, split_metric_key
from harness.contract.messages import Response
from harness.data.task import Parsed, Task


def _text(value: Any) -> str:
    """A filtered value as reply text: a list's first item (lm-eval's take_first), None as ""."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else ""
    return "" if value is None else value if isinstance(value, str) else str(value)


def _recordable(value: Any) -> Any:
    """A filtered value as JSON keeps it (a task filter may return any object: then its text)."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def parse_all(
    task: Task, response: Response, parse: Callable[[Response], Any], doc: dict
) -> tuple[Any, dict[str, Any]]:
    """(the recorded parsed answer, each filter pipeline's parsed answer) of one reply: `parse(response)` once,
    or once per pipeline of the task's `filter_list` (the first pipeline's answer recorded, with every
    pipeline's filtered value in `extra.filtered`); {} without pipelines."""
    pipelines = task.filter_pipelines()
    if not pipelines:
        return parse(response), {}
    filtered = {p.name: p.apply(response.text or "", doc) for p in pipelines}
    parsed_by = {name: parse(Response(text=_text(v), structured=response.structured)) for name, v in filtered.items()}
    first = parsed_by[pipelines[0].name]
    if isinstance(first, Parsed):  # a copy: a Parsed may be frozen
        first = replace(first, extra={**first.extra, "filtered": {k: _recordable(v) for k, v in filtered.items()}})
    return first, parsed_by


def parse_and_score(
    task: Task, response: Response, parse: Callable[[Response], Any], target: Any, doc: dict
) -> tuple[Any, dict[str, Any]]:
    """(parsed answer, per-sample scores) of one reply: `parse_all`, then `task.score` of each pipeline's
    answer (scores keyed `metric,pipeline`), or of the one answer without pipelines."""
    first, parsed_by = parse_all(task, response, parse, doc)
    if not parsed_by:
        return first, task.score(first, target, doc)
    return first, scores_per_pipeline(task, parsed_by, target, doc)


def scores_per_pipeline(task: Task, parsed_by: dict[str, Any], target: Any, doc: dict) -> dict[str, Any]:
    """The task's scores of each pipeline's parsed answer, keyed `metric,pipeline`; a key the score hook returns
    wins over the `[answer, target]` item Task.score adds for a declared corpus metric it left out."""
    out: dict[str, Any] = {}
    for pipe, parsed in parsed_by.items():
        scores = task.score(parsed, target, doc)
        for k, v in scores.items():
            if "," not in k:
                out[metric_key(k, pipe)] = v
        for k, v in scores.items():
            if "," in k and split_metric_key(k)[1] == pipe:
                out.setdefault(k, v)
    return out
