"""leaderboard: many runs merged into one ranked table, refused when the runs are not comparable.

Runs are comparable for a task when they agree on the task version, the effective frame spec digest and
the split; all runs must share the judge (identity and prompt hashes). The score is the mean headline
value over the tasks every run evaluated (higher-is-better headlines only); ties share a rank.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from harness.errors import ConfigError
from harness.report.compat import Mismatch, find_mismatches
from harness.report.escaping import csv_cell, markdown_text
from harness.report.loading import all_tasks, task_result


class LeaderboardMismatchError(ConfigError):
    """Runs whose task versions, frame specs, splits or judges differ cannot be ranked together."""

    def __init__(self, mismatches: list[Mismatch]):
        self.mismatches = mismatches
        lines = "\n  ".join(m.describe() for m in mismatches)
        super().__init__(
            "refusing to rank runs that are not comparable:\n  "
            + lines
            + "\nrerun the odd runs with the same "
            "task version, frame spec, split and judge, or leave them out (or restrict with --tasks)"
        )


@dataclass
class Entry:
    """One run's row."""

    rank: int
    model: str
    source: str
    score: Optional[float]
    values: dict[str, Optional[float]]
    n_samples: dict[str, int] = field(default_factory=dict)


@dataclass
class Leaderboard:
    """Rows ranked by score; `tasks` are the columns, `scored_tasks` those the score averages."""

    tasks: list[str]
    headlines: dict[str, str]
    scored_tasks: list[str]
    entries: list[Entry]

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks": self.tasks,
            "headlines": self.headlines,
            "score": "mean headline over " + ", ".join(self.scored_tasks),
            "scored_tasks": self.scored_tasks,
            "entries": [e.__dict__ for e in self.entries],
        }


def build_leaderboard(runs: Sequence[dict[str, Any]], tasks: Optional[Sequence[str]] = None) -> Leaderboard:
    """Rank the runs; LeaderboardMismatchError when they are not comparable on the chosen tasks."""
    chosen = [t for t in all_tasks(runs) if not tasks or t in set(tasks)]
    if not chosen:
        raise ConfigError(f"leaderboard: none of the tasks {list(tasks or [])} is in the given results files")
    mismatches = find_mismatches(runs, chosen)
    if mismatches:
        raise LeaderboardMismatchError(mismatches)
    headlines = {t: next(task_result(r, t)["headline"] for r in runs if task_result(r, t)) for t in chosen}
    higher = {
        t: next(
            (task_result(r, t)["metrics"].get(headlines[t]) or {}).get("higher_is_better", True)
            for r in runs
            if task_result(r, t)
        )
        for t in chosen
    }
    scored = [t for t in chosen if higher[t] and all(task_result(r, t) for r in runs)]
    entries = []
    for r in runs:
        values, counts = {}, {}
        for t in chosen:
            res = task_result(r, t)
            values[t] = (res["metrics"].get(headlines[t]) or {}).get("value") if res else None
            counts[t] = res["n_samples"] if res else 0
        vals = [values[t] for t in scored if values[t] is not None]
        score = sum(vals) / len(vals) if scored and len(vals) == len(scored) else None
        entries.append(Entry(0, r["_label"], r["_source"], score, values, counts))
    entries.sort(key=lambda e: (e.score is None, -(e.score or 0.0), e.model))
    for i, e in enumerate(entries):
        prev = entries[i - 1] if i else None
        e.rank = prev.rank if prev and prev.score == e.score else i + 1
    return Leaderboard(chosen, headlines, scored, entries)


def _num(x: Optional[float]) -> str:
    return "" if x is None else f"{x:.4f}"


def leaderboard_markdown(board: Leaderboard) -> str:
    """The ranked table as markdown."""
    head = ["rank", "model", "score"] + [markdown_text(f"{t} ({board.headlines[t]})") for t in board.tasks]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in board.entries:
        row = [str(e.rank), markdown_text(e.model), _num(e.score) or "–"]
        row += [_num(e.values[t]) or "–" for t in board.tasks]
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        "score: mean headline over "
        + (
            markdown_text(", ".join(board.scored_tasks))
            if board.scored_tasks
            else "no task shared by every run"
        ),
    ]
    return "\n".join(lines) + "\n"


def leaderboard_csv(board: Leaderboard) -> str:
    """The ranked table as CSV (one column per task's headline value); text cells safe from formula injection."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_cell(c) for c in ["rank", "model", "score", *board.tasks, "source"]])
    for e in board.entries:
        values = (_num(e.values[t]) for t in board.tasks)
        w.writerow([e.rank, csv_cell(e.model), _num(e.score), *values, csv_cell(e.source)])
    return buf.getvalue()


def render_leaderboard(board: Leaderboard, path: Path) -> str:
    """The text for `path`, chosen by its extension (.md, .csv, .json)."""
    ext = path.suffix.lower()
    if ext in (".md", ".markdown"):
        return leaderboard_markdown(board)
    if ext == ".csv":
        return leaderboard_csv(board)
    if ext == ".json":
        return json.dumps(board.to_json(), indent=2, sort_keys=True) + "\n"
    raise ConfigError(f"leaderboard --out {path}: unknown extension '{ext}'; use .md, .csv or .json")
