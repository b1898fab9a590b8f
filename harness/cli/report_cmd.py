"""`python -m harness report|compare|leaderboard`: reports, regression gates and ranked tables from results.

report RESULTS... --out DIR [--data DIR] [--samples N]   -> DIR/report.md, DIR/report.html, DIR/*.png
compare BASE NEW [--threshold [METRIC=]X] [--metric NAME] [--out FILE]   -> exit 4 on a regression
leaderboard RESULTS... --out FILE.md|.csv|.json [--tasks A,B]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import NoReturn

from harness.errors import EXIT_OK, EXIT_REGRESSION, ConfigError
from harness.results.writer import atomic_write_text
from harness.scoring.completeness import refuse_incomplete

ALLOW_INCOMPLETE_HELP = 'also use runs whose results file says "complete": false (see docs/cli.md, exit 5)'


class _Parser(argparse.ArgumentParser):
    """argparse that raises ConfigError (exit 2 through the CLI) instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"{self.prog}: {message} (see --help)")


def _report(argv: list[str]) -> int:
    p = _Parser(prog="python -m harness report", description="tables, plots and a sample viewer")
    p.add_argument("results", nargs="+", help="results_*.json files or folders holding them")
    p.add_argument("--out", required=True, help="output folder for report.md, report.html and PNGs")
    p.add_argument("--data", default=None, help="dataset root, to show the frames the model saw")
    p.add_argument("--samples", type=int, default=3, help="samples per task in the viewer (0: none)")
    p.add_argument("--title", default="Evaluation report")
    p.add_argument("--include_path", action="append", default=[])
    args = p.parse_args(argv)
    from harness.plugins.loading import load_plugins
    from harness.report.engine import build_report, write_report
    from harness.report.loading import load_runs

    runs = load_runs(args.results)
    data = Path(args.data) if args.data else None
    if data is not None and not data.is_dir():
        raise ConfigError(f"report --data {data}: no such folder (the dataset root the runs used)")
    state = load_plugins(args.include_path)
    for info in state.broken():
        print(f"warning: plugin '{info.name}' is broken: {'; '.join(info.errors)}")
    sections = build_report(runs, state.registry, data, args.samples)
    files = write_report(sections, Path(args.out), args.title)
    print(f"wrote {files.markdown}, {files.html} and {len(files.figures)} figures")
    return EXIT_OK


def parse_thresholds(values: list[str]) -> dict[str, float]:
    """'0.01' (every gated metric), 'accuracy=0.02' or 'task:metric=0.02' -> {key: minimum drop}."""
    out: dict[str, float] = {}
    for raw in values:
        key, _, num = raw.rpartition("=")
        try:
            out[key or "*"] = float(num)
        except ValueError:
            raise ConfigError(f"compare --threshold '{raw}': expected X, METRIC=X or TASK:METRIC=X") from None
    return out


def _compare(argv: list[str]) -> int:
    p = _Parser(prog="python -m harness compare", description="paired deltas; exit 4 on a regression")
    p.add_argument("base", help="the stored results file (or a folder with exactly one)")
    p.add_argument("new", help="the new results file (or a folder with exactly one)")
    p.add_argument("--metric", action="append", default=[], help="metrics to gate (default: each headline)")
    p.add_argument(
        "--threshold",
        action="append",
        default=[],
        help="minimum drop that counts: X, METRIC=X or TASK:METRIC=X (default 0)",
    )
    p.add_argument("--tasks", default="", help="comma-separated tasks to compare (default: all shared)")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--n_resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--allow_mismatch",
        action="store_true",
        help="compare even when task versions, frame specs, splits or judges differ",
    )
    p.add_argument("--out", default=None, help="also write the comparison to FILE (.json or .md)")
    p.add_argument("--allow_incomplete", action="store_true", help=ALLOW_INCOMPLETE_HELP)
    args = p.parse_args(argv)
    from harness.report.compare import compare_runs, comparison_markdown
    from harness.report.loading import expand_paths, load_run, unique_labels

    pair = []
    for which, raw in (("base", args.base), ("new", args.new)):
        files = expand_paths([raw])
        if len(files) != 1:
            raise ConfigError(
                f"compare {which} {raw}: holds {len(files)} results files; give exactly one file"
            )
        pair.append(load_run(files[0]))
    if not args.allow_incomplete:
        refuse_incomplete(pair, "compare")
    unique_labels(pair)
    tasks = [t for t in args.tasks.split(",") if t]
    cmp = compare_runs(
        pair[0],
        pair[1],
        gate=args.metric or None,
        thresholds=parse_thresholds(args.threshold),
        tasks=tasks or None,
        confidence=args.confidence,
        n_resamples=args.n_resamples,
        seed=args.seed,
    )
    if cmp.mismatches and not args.allow_mismatch:
        raise ConfigError(
            "compare: the runs are not comparable:\n  "
            + "\n  ".join(m.describe() for m in cmp.mismatches)
            + "\nrerun one of them to match, or pass --allow_mismatch"
        )
    if not cmp.deltas:
        raise ConfigError(f"compare: {args.base} and {args.new} share no task with a common metric")
    text = comparison_markdown(cmp)
    print(text, end="")
    if args.out:
        out = Path(args.out)
        body = json.dumps(cmp.to_json(), indent=2, sort_keys=True) + "\n" if out.suffix == ".json" else text
        atomic_write_text(out, body)
    return EXIT_REGRESSION if cmp.regressions() else EXIT_OK


def _leaderboard(argv: list[str]) -> int:
    p = _Parser(prog="python -m harness leaderboard", description="one ranked table from many results")
    p.add_argument("results", nargs="+", help="results_*.json files or folders holding them")
    p.add_argument("--out", required=True, help="FILE.md, FILE.csv or FILE.json")
    p.add_argument("--tasks", default="", help="comma-separated tasks to rank on (default: all)")
    p.add_argument("--allow_incomplete", action="store_true", help=ALLOW_INCOMPLETE_HELP)
    args = p.parse_args(argv)
    from harness.report.leaderboard import build_leaderboard, leaderboard_markdown, render_leaderboard
    from harness.report.loading import load_runs

    runs = load_runs(args.results, with_samples=False)
    if not args.allow_incomplete:
        refuse_incomplete(runs, "leaderboard")
    board = build_leaderboard(runs, [t for t in args.tasks.split(",") if t] or None)
    out = Path(args.out)
    text = render_leaderboard(board, out)
    atomic_write_text(out, text)
    print(leaderboard_markdown(board), end="")
    return EXIT_OK


def main(argv: list[str], command: str = "report") -> int:
    """Dispatch `report`, `compare` or `leaderboard`."""
    handlers = {"report": _report, "compare": _compare, "leaderboard": _leaderboard}
    if command not in handlers:
        raise ConfigError(f"unknown report command '{command}' (expected one of {sorted(handlers)})")
    return handlers[command](argv)
