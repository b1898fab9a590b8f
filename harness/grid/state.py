"""The grid's state: OUTPUT/grid.json (written by the driver only, atomically, as cells change) and the
per-cell status files workers write under OUTPUT/.grid/cells/ (on storage the driver sees).

Cell statuses: queued, running, done (complete results file), incomplete (results file says complete:
false), failed (no results file; `reason` says why). `stale`: cells of an earlier grid.json whose
parameters no longer match any cell of the grid file.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional

from harness.files import write_atomic
from harness.grid.cells import Cell
from harness.results.lm_eval_keys import model_args_string

GRID_JSON = "grid.json"
WORK_DIR = ".grid"
QUEUED, RUNNING, DONE, INCOMPLETE, FAILED = "queued", "running", "done", "incomplete", "failed"
FINISHED = (DONE, INCOMPLETE, FAILED)


def work_dir(output_path: Path) -> Path:
    """OUTPUT/.grid: status files, job files and worker logs (hidden from the results scan)."""
    return Path(output_path) / WORK_DIR


def status_path(output_path: Path, cell_id: str) -> Path:
    return work_dir(output_path) / "cells" / f"{cell_id}.json"


def write_status(output_path: Path, cell_id: str, status: dict[str, Any]) -> None:
    """A worker's report on one cell (atomic: the driver reads the old one or the whole new one)."""
    write_atomic(status_path(output_path, cell_id), json.dumps(status, sort_keys=True))


def read_status(output_path: Path, cell_id: str) -> Optional[dict[str, Any]]:
    """The worker's last report on a cell, or None (none yet, or unreadable)."""
    try:
        return json.loads(status_path(output_path, cell_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_grid_json(output_path: Path) -> dict[str, Any]:
    """The previous grid.json ({} when there is none or it cannot be read)."""
    try:
        data = json.loads((Path(output_path) / GRID_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_grid_json(output_path: Path, state: dict[str, Any]) -> None:
    state["updated"] = time.time()
    write_atomic(Path(output_path) / GRID_JSON, json.dumps(state, indent=2, sort_keys=True) + "\n")


def cell_entry(cell: Cell) -> dict[str, Any]:
    """A cell's grid.json entry, queued."""
    return {
        "id": cell.id,
        "model": cell.run["model"],
        "name": cell.label,
        "task": cell.task,
        "status": QUEUED,
        "results": None,
        "headline": None,
        "reason": None,
    }


def results_matching(cell: Cell, since: float, taken: set[str]) -> Optional[Path]:
    """A results file of this cell written at or after `since` (a worker finished it but was killed before
    the driver recorded it): same model, args, task, limit and seed; none that another cell claimed."""
    out = Path(cell.run["output_path"])
    for path in sorted(out.glob("*/results_*.json")):
        if str(path) in taken or path.stat().st_mtime < since:
            continue
        try:
            config = json.loads(path.read_text(encoding="utf-8")).get("config") or {}
        except (OSError, ValueError):
            continue
        if (
            config.get("requested") == cell.run["tasks"]
            and config.get("model") == cell.run["model"]
            and config.get("model_args") == model_args_string(cell.run["model_args"])
            and config.get("limit") == cell.run["limit"]
            and config.get("seed") == cell.run["seed"]
        ):
            return path
    return None
