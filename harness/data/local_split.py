"""A local dataset folder's split as rows: JSON Lines (one bad line is one DroppedRow, never a stopped run) or a
JSON list; what `harness.data.task.Task` reads when a task has no loader hook and its folder is not a `datasets`
one."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Optional

from harness.contract.hooks import DroppedRow
from harness.data.media import MediaPathError, resolve_media_path
from harness.errors import DataError
from harness.files import open_regular, read_json_file


def read_jsonl_rows(path: Path, what: str) -> list:
    """One JSON value per non-empty line; a line that is not valid JSON (or not UTF-8) becomes a
    DroppedRow("invalid_json") naming the file and line, so one bad line never stops a run."""
    rows: list = []
    with open_regular(path, f"split file of {what} (JSON Lines)") as raw:  # a regular file within the bound, never a FIFO
        f = io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape")  # a byte-order mark is not row 1's
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except (json.JSONDecodeError, UnicodeError, RecursionError) as exc:
                msg = "nested too deeply to read" if isinstance(exc, RecursionError) else getattr(exc, "msg", str(exc))
                rows.append(
                    DroppedRow("invalid_json", f"{what}: {path} line {lineno} is not valid JSON ({msg})")
                )
    return rows


def read_local_split(root: Path, split: str, task: str, names: Optional[list[str]] = None) -> list[dict]:
    """The rows of `split` in a local dataset folder: `{split}.jsonl` / `.json` (also under `data/`), or the
    files `names`; DataError naming the file when it is not a JSON list of rows, or when none exists."""
    names = names or [f"{split}.jsonl", f"{split}.json", f"data/{split}.jsonl", f"data/{split}.json"]
    for name in names:
        if (root / name).exists():
            try:  # a split file linked out of the dataset folder is refused (issue 37), unless opted in
                p = Path(resolve_media_path(root, name, f"task '{task}'", kind="split file"))
            except MediaPathError as exc:
                raise DataError(str(exc)) from None
            if Path(name).suffix == ".jsonl":  # the name says the format (a hub cache links it to a bare blob)
                return read_jsonl_rows(p, f"task '{task}'")
            data = read_json_file(p, f"split file of task '{task}' (a JSON list of rows)")
            rows = data
            if isinstance(data, dict):
                rows = data.get("data", data.get("questions"))
            if not isinstance(rows, list):
                raise DataError(
                    f"task '{task}': {p} holds {type(data).__name__}; expected a JSON list of rows "
                    '(or {"data": [...]})'
                )
            return rows
    raise DataError(f"task '{task}': no '{split}' split in {root} (looked for {split}.jsonl / {split}.json)")
