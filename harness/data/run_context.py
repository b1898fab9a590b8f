"""What a task learns of its run, and what loading one split gave: two frozen values, never a task's mutable
state. A `Task` is built with its config, data root and cache (harness/data/task.py); these travel beside it,
with `checked_rows`, how a loader's rows become a split's docs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from harness.contract.hooks import DroppedRow, short_repr
from harness.data.fetch import FetchedRelease
from harness.files import MAX_JSON_DEPTH


@dataclass(frozen=True)
class RunContext:
    """Per-run state a task needs: whether downloads show progress, the hub revision of releases fetched without
    --data, the names the run's model goes by (most specific first: lmms-eval tasks pick per-model prompts and
    generation settings by them) and the folder a task's own functions may write to (lmms-eval's
    `args.output_path`)."""

    progress: bool = True
    data_revision: Optional[str] = None
    model_names: tuple[str, ...] = ()
    output_dir: Optional[Path] = None


@dataclass(frozen=True)
class LoadedSplit:
    """One split as a task's loader gave it: the docs (each with a string `doc_id`), the rows it could not use
    (each {"reason", "detail"}), the dataset folder it read, the hub release it came from (without --data), and
    the folders whose absolute media paths its rows may name (set when the rows came through `datasets`)."""

    docs: list[dict[str, Any]]
    dropped: list[dict[str, str]] = field(default_factory=list)
    root: Optional[Path] = None
    release: Optional[FetchedRelease] = None
    media_roots: tuple[Path, ...] = ()


#: the deepest nesting a row may have (a real row nests a few levels): deeper ones are dropped, so no later step
#: (the prompt, the cache key) recurses past Python's limit on a hostile row, and the samples file, where a row
#: is logged one level down (`doc`), stays one the samples reader accepts
MAX_ROW_DEPTH = MAX_JSON_DEPTH - 1


def nesting_depth(value: Any, limit: int = MAX_ROW_DEPTH) -> int:
    """How deep `value` nests lists and mappings, counted without recursion and only up to `limit` + 1."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list, tuple)):
            deepest = max(deepest, depth)
            if depth > limit:
                return depth
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return deepest


def checked_rows(docs: list, split: str, task: str, doc_id: str) -> tuple[list[dict], list[dict[str, str]]]:
    """A loader's rows (task `task`, split `split`) as docs with unique string ids (read from the field `doc_id`,
    else `doc_id`, else the row's index), and the rows it could not use (DroppedRow, not a mapping, a repeated id)."""
    seen: set[str] = set()
    out: list[dict] = []
    dropped: list[dict[str, str]] = []
    for i, doc in enumerate(docs):
        if isinstance(doc, DroppedRow):
            dropped.append(doc.to_json())
            continue
        if not isinstance(doc, dict):
            what = f"row {i} of split '{split}' is {type(doc).__name__} {short_repr(doc)}, not a mapping"
            dropped.append(DroppedRow("not_a_mapping", f"task '{task}': {what}").to_json())
            continue
        if nesting_depth(doc) > MAX_ROW_DEPTH:
            what = f"row {i} of split '{split}' nests deeper than {MAX_ROW_DEPTH} levels"
            dropped.append(DroppedRow("too_deep", f"task '{task}': {what}").to_json())
            continue
        key = str(doc.get(doc_id, doc.get("doc_id", i)))
        if key in seen:
            what = f"row {i} of split '{split}' repeats doc id '{key}' (the first row with it is kept)"
            dropped.append(DroppedRow("duplicate_id", f"task '{task}': {what}").to_json())
            continue
        seen.add(key)
        out.append({**doc, "doc_id": key})
    return out, dropped
