"""Run a grid: validate it, keep its complete cells, launch the others (one job per model entry), follow
their status files into OUTPUT/grid.json and one line per change, then write the leaderboard and report.

Resume rules (docs/cli.md, "grid"): a cell whose identity matches a done cell of the previous grid.json,
with its results file still there, is not run again; every other cell runs through the run command's path,
so a cell interrupted mid-way resumes from the response cache (no finished model call repeated) and a failed
one runs again; a previous cell whose identity no longer matches any cell is kept in grid.json as stale.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional, TextIO

from harness.errors import EXIT_INCOMPLETE, EXIT_OK, ConfigError
from harness.grid.cells import Cell, build_cells
from harness.grid.executors import make_executor
from harness.grid.spec import GridFile
from harness.grid.state import (
    DONE,
    FAILED,
    FINISHED,
    GRID_JSON,
    RUNNING,
    cell_entry,
    read_grid_json,
    read_status,
    results_matching,
    status_path,
    write_grid_json,
)
from harness.grid.summary import write_summaries
from harness.grid.worker import outcome
from harness.plugins.loading import PluginState, load_plugins

POLL_SECONDS = 0.2


def check_names(grid: GridFile, state: PluginState, where: str) -> None:
    """Every task, model and judge the grid names is registered, and the data root exists (exit 2)."""
    checks = [(f"tasks[{i}]", "task", t) for i, t in enumerate(grid.tasks)]
    checks += [(f"models[{i}].model", "model", e.model) for i, e in enumerate(grid.models)]
    for field, kind, name in checks:
        try:
            state.registry.get(kind, name)
        except ConfigError as exc:
            raise ConfigError(f"{where}: field '{field}': {exc}") from None
    if grid.data_revision and grid.data is not None:
        raise ConfigError(
            f"{where}: field 'data_revision': pins the hub release a task fetches without `data`; with `data` "
            "the local folder is read as it is: drop one of the two"
        )
    if grid.data is not None and not Path(grid.data).is_dir():
        raise ConfigError(f"{where}: field 'data': {grid.data} is not a folder (the dataset root)")


def _kept(cell: Cell, before: Optional[dict[str, Any]], taken: set[str]) -> Optional[dict[str, Any]]:
    """The cell's finished entry when it need not run again: done in the previous grid.json with its results
    file there, or finished by a worker after the driver's last write (its status file, else its results
    file written after it started)."""
    if before is None:
        return None
    if before.get("status") == DONE and before.get("results") and Path(before["results"]).is_file():
        return before
    output = Path(cell.run["output_path"])
    status = read_status(output, cell.id) or {}
    path = status.get("results") if status.get("status") == DONE else None
    if path is None and before.get("status") == RUNNING and before.get("started"):
        found = results_matching(cell, float(before["started"]), taken)
        path = str(found) if found else None
    if path is None or not Path(path).is_file() or path in taken:
        return None
    found = outcome(json.loads(Path(path).read_text(encoding="utf-8")), Path(path), cell.task)
    return {**before, **found} if found["status"] == DONE else None


class GridRun:
    """The driver's view of a grid run: its cells' entries, grid.json, and the progress lines."""

    def __init__(self, grid: GridFile, cells: list[Cell], out: TextIO) -> None:
        self.grid, self.cells, self.out = grid, cells, out
        self.output = Path(grid.output_path)
        before = read_grid_json(self.output)
        previous = {c.get("id"): c for c in before.get("cells") or [] if isinstance(c, dict)}
        ids = {c.id for c in cells}
        stale = [c for c in [*(before.get("stale") or []), *previous.values()] if c.get("id") not in ids]
        self.stale = list({c.get("id"): {**c, "stale": True} for c in stale}.values())
        self.entries: dict[str, dict[str, Any]] = {}
        self.to_run: list[Cell] = []
        taken: set[str] = set()
        for cell in cells:
            kept = _kept(cell, previous.get(cell.id), taken)
            self.entries[cell.id] = {**cell_entry(cell), **(kept or {})}
            if kept:
                taken.add(kept["results"])
            else:
                self.to_run.append(cell)
                status_path(self.output, cell.id).unlink(missing_ok=True)

    def write(self) -> None:
        write_grid_json(
            self.output,
            {"executor": self.grid.executor, "cells": list(self.entries.values()), "stale": self.stale},
        )

    def line(self, cell: Cell, note: str = "") -> None:
        e = self.entries[cell.id]
        detail = {DONE: e.get("headline"), RUNNING: e.get("progress")}.get(e["status"], e.get("reason"))
        n = self.cells.index(cell) + 1
        text = f"[{n}/{len(self.cells)}] {cell.title}: {e['status']}"
        print(text + (f" {detail}" if detail else "") + note, file=self.out, flush=True)

    def refresh(self, cells: list[Cell]) -> bool:
        """Read the workers' status files of these cells; True when an entry changed (its line printed)."""
        changed = False
        for cell in cells:
            status = read_status(self.output, cell.id)
            e = self.entries[cell.id]
            seen = ("status", "started", "progress")
            if status is None or all(status.get(k) == e.get(k) for k in seen):
                continue
            for key in ("status", "results", "headline", "reason", "started", "ended", "host", "stats", "progress"):
                e[key] = status.get(key)
            self.line(cell)
            changed = True
        return changed

    def job_ended(self, cells: list[Cell], reason: Optional[str]) -> None:
        """A job is over: its cells that never reported an end failed (with the job's reason)."""
        for cell in cells:
            e = self.entries[cell.id]
            if e["status"] not in FINISHED:
                e.update(status=FAILED, reason=reason or "the worker ended without reporting this cell")
                self.line(cell)


def _jobs(grid: GridFile, cells: list[Cell]) -> list[tuple[dict[str, Any], list[Cell]]]:
    """One job per model entry with cells to run (its cells in grid order: a checkpoint loads in one worker)."""
    by_entry: dict[int, list[Cell]] = {}
    for cell in cells:
        by_entry.setdefault(cell.entry, []).append(cell)
    return [
        (
            {
                "entry": entry,
                "output_path": str(Path(grid_cells[0].run["output_path"])),
                "allow_external_symlinks": grid.allow_external_symlinks,
                "cells": [asdict(c) for c in grid_cells],
            },
            grid_cells,
        )
        for entry, grid_cells in by_entry.items()
    ]


def _follow(run: GridRun, executor, jobs: list[tuple[dict[str, Any], list[Cell]]]) -> None:
    """Launch the jobs and follow them until every one has ended, writing grid.json on each change."""
    executor.submit([job for job, _ in jobs])
    while True:
        ended = executor.poll()
        changed = run.refresh(run.to_run)
        for index, reason in ended:
            run.refresh(jobs[index][1])
            run.job_ended(jobs[index][1], reason)
            changed = True
        if changed:
            run.write()
        if not executor.busy():
            return
        time.sleep(POLL_SECONDS)


def run_grid(grid: GridFile, where: str, out: TextIO = sys.stderr) -> int:
    """Run (or resume) the grid; EXIT_OK when every cell is complete, EXIT_INCOMPLETE otherwise."""
    state = load_plugins(grid.include_path)
    check_names(grid, state, where)
    cells = build_cells(grid, state)
    run = GridRun(grid, cells, out)
    executor = make_executor(grid) if run.to_run else None  # a missing extra: exit 3, before any model call
    run.write()
    for cell in cells:
        run.line(cell, "" if cell in run.to_run else " (complete in an earlier run: not run again)")
    for entry in run.stale:
        print(f"stale: {entry.get('name')} x {entry.get('task')} (its parameters changed; results kept: "
              f"{entry.get('results')})", file=out)
    if executor is not None:
        try:
            _follow(run, executor, _jobs(grid, run.to_run))
        finally:
            executor.close()
    notes = write_summaries(grid, state, [e for e in run.entries.values() if e["status"] == DONE])
    run.write()
    return _finish(run, notes, out)


def _finish(run: GridRun, notes: list[str], out: TextIO) -> int:
    entries = list(run.entries.values())
    counts: dict[str, int] = {}
    for e in entries:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"grid: {len(entries)} cells: {summary}; state in {run.output / GRID_JSON}", file=out)
    for note in notes:
        print(note, file=out)
    bad = [e for e in entries if e["status"] != DONE]
    for e in bad:
        print(f"  not complete: {e['name']} x {e['task']}: {e['status']}: {e.get('reason')}", file=out)
    if bad:
        print(f"incomplete grid (exit {EXIT_INCOMPLETE}): rerun the same command to resume", file=out)
        return EXIT_INCOMPLETE
    return EXIT_OK



