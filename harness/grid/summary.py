"""The grid's leaderboard (md, csv, json) and report over every complete cell, under output_path, with the
`leaderboard` and `report` commands' own code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.grid.spec import GridFile
from harness.plugins.loading import PluginState
from harness.report.engine import build_report, write_report
from harness.report.leaderboard import build_leaderboard, render_leaderboard
from harness.report.loading import load_runs
from harness.results.writer import atomic_write_text

LEADERBOARD_FORMATS = ("md", "csv", "json")
REPORT_DIR = "report"


def write_summaries(grid: GridFile, state: PluginState, done: list[dict[str, Any]]) -> list[str]:
    """Write the leaderboard files and the report; lines saying what was written, or `warning: ...` why not (the cells are complete all the same)."""
    paths = [e["results"] for e in done]
    if not paths:
        return ["no complete cell: no leaderboard or report written"]
    out = Path(grid.output_path)
    notes = []
    try:
        board = build_leaderboard(load_runs(paths, with_samples=False))
        for ext in LEADERBOARD_FORMATS:
            target = out / f"leaderboard.{ext}"
            atomic_write_text(target, render_leaderboard(board, target))
        notes.append(f"leaderboard: {out / 'leaderboard.md'} (.csv, .json)")
    except HarnessError as exc:
        notes.append(f"warning: leaderboard not written: {exc}")
    try:
        sections = build_report(load_runs(paths), state.registry, Path(grid.data) if grid.data else None)
        files = write_report(sections, out / REPORT_DIR, "Grid report")
        notes.append(f"report: {files.markdown} and {files.html}")
    except HarnessError as exc:
        notes.append(f"warning: report not written: {exc}")
    return notes
