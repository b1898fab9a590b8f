"""A grid worker: one model's cells, in order, each through the run command's own path (harness.evaluation.execute).

Runs in a subprocess (`python -m harness.grid.worker JOB.json`, the local executor), a Ray task or a SLURM
job; it reports each cell in a status file (state.py) the driver reads, and returns the same reports.
A cell that fails is reported with its reason and the next one runs.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

from harness.engine.model_pool import shared_models
from harness.engine.progress import ProgressReport
from harness.errors import HarnessError
from harness.evaluation import execute
from harness.grid.cells import Cell, run_config
from harness.grid.progress import ThrottledReport
from harness.grid.state import DONE, FAILED, INCOMPLETE, RUNNING, write_status
from harness.plugins.loading import load_plugins
from harness.scoring.completeness import is_complete

log = logging.getLogger("harness.grid.worker")


def headline(results: dict[str, Any], task: str) -> Optional[str]:
    """`metric=value` of a cell's headline (the task's, or the group's first aggregate metric)."""
    res = (results.get("task_results") or {}).get(task) or (results.get("group_results") or {}).get(task) or {}
    metrics = res.get("metrics") or {}
    name = res.get("headline") or next(iter(metrics), None)
    value = (metrics.get(name) or {}).get("value") if name else None
    if name is None:
        return None
    return f"{name}={value:.4f}" if isinstance(value, (int, float)) else f"{name}=n/a"


def outcome(results: dict[str, Any], path: Optional[Path], task: str) -> dict[str, Any]:
    """A finished cell's report from its results: done, or incomplete with the results' reasons."""
    complete = is_complete(results)
    return {
        "status": DONE if complete else INCOMPLETE,
        "results": str(path) if path else None,
        "headline": headline(results, task),
        "reason": None if complete else "; ".join(results.get("incomplete_reasons") or ["incomplete"]),
    }


def _run_cell(cell: Cell, state, allow_external_symlinks: bool, progress: ProgressReport) -> dict[str, Any]:
    try:
        cfg = replace(run_config(cell.run), allow_external_symlinks=allow_external_symlinks, on_progress=progress)
        out = execute(cfg, state)
    except HarnessError as exc:
        return {"status": FAILED, "reason": f"{type(exc).__name__}: {exc}".splitlines()[0]}
    except Exception as exc:  # noqa: BLE001 - a cell's crash is its failure; the worker goes on
        log.exception("cell %s failed", cell.title)
        return {"status": FAILED, "reason": f"{type(exc).__name__}: {exc}".splitlines()[0]}
    if out.results is None:
        return {"status": FAILED, "reason": "this process is not rank 0 of a distributed run"}
    return {**outcome(out.results, out.results_path, cell.task), "stats": dict(out.stats)}


def run_job(job: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one job's cells (the cells of one model entry) and report each; returns the final reports."""
    allow = bool(job.get("allow_external_symlinks"))
    cells = [Cell(**c) for c in job["cells"]]
    output = Path(job["output_path"])
    state = load_plugins(cells[0].run["include_path"]) if cells else None
    reports = []
    with shared_models():  # the model entry's checkpoint loads once for all its cells
        for cell in cells:
            reports.append(_run_reported(cell, state, output, allow))
    return reports


def _run_reported(cell: Cell, state, output: Path, allow_external_symlinks: bool) -> dict[str, Any]:
    """One cell, with its status file written before (running) and after (its outcome)."""
    where = {"host": socket.gethostname(), "pid": os.getpid()}
    started = time.time()
    running = {"status": RUNNING, "started": started, **where}
    write_status(output, cell.id, running)

    def progress(done: int, total: int) -> None:
        write_status(output, cell.id, {**running, "progress": f"{done}/{total} samples generated"})

    ran = _run_cell(cell, state, allow_external_symlinks, ThrottledReport(progress))
    report = {**ran, "started": started, "ended": time.time(), **where}
    write_status(output, cell.id, report)
    return report


def main(argv: list[str]) -> int:
    """`python -m harness.grid.worker JOB.json`: the local executor's worker process."""
    job = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    run_job(job)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sys.exit(main(sys.argv[1:]))
