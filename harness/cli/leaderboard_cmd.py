"""`python -m harness leaderboard RESULTS... --out FILE.md|.csv|.json [--tasks A,B]`: one ranked table."""

from __future__ import annotations

from pathlib import Path

from harness.cli.args import ALLOW_INCOMPLETE_HELP, ArgumentParser
from harness.report.escaping import terminal_text
from harness.report.leaderboard import build_leaderboard, leaderboard_markdown, render_leaderboard
from harness.report.loading import load_runs, skipped_files
from harness.results.writer import atomic_write_text
from harness.scoring.completeness import refuse_incomplete


def main(argv: list[str]) -> int:
    """One ranked table from many results files."""
    p = ArgumentParser(prog="python -m harness leaderboard", description="one ranked table from many results")
    p.add_argument("results", nargs="+", help="results_*.json files or folders holding them")
    p.add_argument("--out", required=True, help="FILE.md, FILE.csv or FILE.json")
    p.add_argument("--tasks", default="", help="comma-separated tasks to rank on (default: all)")
    p.add_argument("--allow_incomplete", action="store_true", help=ALLOW_INCOMPLETE_HELP)
    args = p.parse_args(argv)
    failures: list[str] = []  # results files that could not be read: named, the others go on (exit 2)
    runs = load_runs(args.results, with_samples=False, failures=failures)
    if not args.allow_incomplete:
        refuse_incomplete(runs, "leaderboard")
    board = build_leaderboard(runs, [t for t in args.tasks.split(",") if t] or None)
    out = Path(args.out)
    text = render_leaderboard(board, out)
    atomic_write_text(out, text)
    print(terminal_text(leaderboard_markdown(board)), end="")
    return skipped_files(failures)
