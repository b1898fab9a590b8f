"""Which runs may be ranked or compared: same task version, same effective frame spec, same judge, same split.

A mismatch names the task, the field and, for each value seen, the results files that have it, so the
message says exactly which run to redo.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.report.loading import task_config

ALL_TASKS = "(all tasks)"


@dataclass
class Mismatch:
    """One field that differs between runs for one task: value -> results files."""

    task: str
    field: str
    values: dict[str, list[str]]

    def describe(self) -> str:
        seen = "; ".join(f"{v} in {', '.join(files)}" for v, files in self.values.items())
        return f"task {self.task}: {self.field} differs: {seen}"


def judge_identity(run: dict[str, Any]) -> str:
    """'none' or 'NAME#digest' of the judge's name, identity and prompt-template hashes."""
    judge = (run.get("config") or {}).get("judge")
    if not judge:
        return "none"
    blob = json.dumps(judge, sort_keys=True, default=str)
    return f"{judge.get('name', '?')}#{hashlib.sha256(blob.encode()).hexdigest()[:12]}"


def task_fields(run: dict[str, Any], task: str) -> dict[str, str]:
    """The fields that must agree for `task`: version, frame_spec_digest, split."""
    tcfg = ((run.get("config") or {}).get("tasks") or {}).get(task) or {}
    split = (run.get("config") or {}).get("split") or (task_config(run, task).get("dataset") or {}).get(
        "split"
    )
    return {
        "version": str(tcfg.get("version", (run.get("task_results") or {}).get(task, {}).get("version"))),
        "frame_spec_digest": str(tcfg.get("frame_spec_digest")),
        "split": str(split),
    }


def find_mismatches(runs: Sequence[dict[str, Any]], tasks: Sequence[str]) -> list[Mismatch]:
    """Every (task, field) whose value differs among the runs that evaluated the task, plus the judge."""
    out: list[Mismatch] = []
    for task in tasks:
        present = [r for r in runs if task in (r.get("task_results") or {})]
        fields: dict[str, dict[str, list[str]]] = {}
        for r in present:
            for name, value in task_fields(r, task).items():
                fields.setdefault(name, {}).setdefault(value, []).append(r["_source"])
        out.extend(Mismatch(task, name, vals) for name, vals in fields.items() if len(vals) > 1)
    judges: dict[str, list[str]] = {}
    for r in runs:
        judges.setdefault(judge_identity(r), []).append(r["_source"])
    if len(judges) > 1:
        out.append(Mismatch(ALL_TASKS, "judge", judges))
    return out
