"""Checks on CycliST dataset rows that do not depend on the family: reading a JSON file (a byte-order mark
is accepted), non-finite numbers anywhere in a row, and duplicate questions across files."""

from __future__ import annotations

import json
import logging
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

from harness.api import DroppedRow, read_text_file
from harness_tasks.cyclist.families import template_stem

log = logging.getLogger(__name__)


class UnreadableFile(ValueError):
    """A dataset file that is not readable JSON; the message names the file and the problem."""


# What a non-finite number looks like in JSON text: the NaN / Infinity extensions Python's reader accepts,
# or a literal too large for a float (it reads as infinity). Files without it need no walk of their rows.
_MAYBE_NON_FINITE = re.compile(r"NaN|Infinity|[eE]\+?\d{3}|\d{300}")


def read_json(path: Path) -> tuple[Any, bool]:
    """A JSON file's value (a UTF-8 byte-order mark at its start is accepted) and whether its text may hold
    a non-finite number (then check rows with `non_finite_path`); UnreadableFile when it cannot be read."""
    text = read_text_file(path, "CycliST JSON file", error=UnreadableFile)  # regular, bounded, never a FIFO
    try:
        return json.loads(text), bool(_MAYBE_NON_FINITE.search(text))
    except json.JSONDecodeError as exc:
        raise UnreadableFile(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from exc


def non_finite_path(value: Any, where: str = "") -> Optional[str]:
    """Where in a JSON value the first NaN or infinity is (e.g. `answer`, `program[2].value_inputs[0]`),
    or None. Python's JSON reader accepts `NaN` and `Infinity`, and numbers too large for a float."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        at, v = stack.pop()
        if isinstance(v, float):
            if not math.isfinite(v):
                return at or "the value"
        elif isinstance(v, dict):
            stack.extend((f"{at}.{k}" if at else str(k), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((f"{at}[{i}]", x) for i, x in reversed(list(enumerate(v))))
    return None


def _index_key(row: dict) -> Optional[tuple]:
    index = row.get("question_index")
    if index is None or isinstance(index, (dict, list)):
        return None
    return (template_stem(row.get("template_filename") or row.get("family") or ""), str(index))


class Duplicates:
    """Keeps the first of repeated questions: the same question text of the same video, or the same
    `question_index` of the same template file (the release numbers questions per generator run, one run
    per template file), within one split. Later copies become DroppedRow `duplicate`; `warn` logs one
    line per pair of files naming both."""

    def __init__(self) -> None:
        self._seen: dict[tuple, tuple[Path, int]] = {}
        self._pairs: dict[tuple[Path, Path], int] = defaultdict(int)

    def check(self, row: dict, path: Path, position: int) -> Optional[DroppedRow]:
        """None for a first occurrence (remembered), else the DroppedRow naming both files."""
        video = Path(str(row.get("video_filename", ""))).name
        keys = [("text", video, " ".join(str(row.get("question", "")).split()).lower())]
        index_key = _index_key(row)
        if index_key is not None:
            keys.append(("index", *index_key))
        for key in keys:
            if key in self._seen:
                first, first_pos = self._seen[key]
                self._pairs[(first, path)] += 1
                what = (
                    "the same question of the same video" if key[0] == "text" else "the same question_index"
                )
                return DroppedRow(
                    "duplicate",
                    f"CycliST: {path} question {position} repeats {first} question {first_pos} ({what}, "
                    f"video {video or '?'}); the first is kept",
                )
        for key in keys:
            self._seen[key] = (path, position)
        return None

    def warn(self) -> None:
        """One warning per pair of files with duplicates (both files named)."""
        for (first, later), n in sorted(self._pairs.items()):
            log.warning(
                "CycliST: %d question(s) in %s repeat questions of %s; dropped as duplicates (reason "
                "`duplicate`, counted in the results). Remove one of the files.",
                n,
                later,
                first,
            )
