"""`python -m harness report RESULTS... --out DIR [--data DIR] [--samples N]`: DIR/report.md, DIR/report.html
and DIR/*.png from results files."""

from __future__ import annotations

from pathlib import Path

from harness.cli.args import ArgumentParser
from harness.errors import ConfigError
from harness.plugins.loading import load_plugins
from harness.report.engine import build_report, write_report
from harness.report.loading import load_runs, skipped_files


def main(argv: list[str]) -> int:
    """Tables, plots and a sample viewer from results files."""
    p = ArgumentParser(prog="python -m harness report", description="tables, plots and a sample viewer")
    p.add_argument("results", nargs="+", help="results_*.json files or folders holding them")
    p.add_argument("--out", required=True, help="output folder for report.md, report.html and PNGs")
    p.add_argument("--data", default=None, help="dataset root, to show the frames the model saw")
    p.add_argument("--samples", type=int, default=3, help="samples per task in the viewer (0: none)")
    p.add_argument("--title", default="Evaluation report")
    p.add_argument("--include_path", action="append", default=[])
    args = p.parse_args(argv)
    failures: list[str] = []  # results files that could not be read: named, the others go on (exit 2)
    runs = load_runs(args.results, failures=failures)
    data = Path(args.data) if args.data else None
    if data is not None and not data.is_dir():
        raise ConfigError(f"report --data {data}: no such folder (the dataset root the runs used)")
    state = load_plugins(args.include_path)
    for info in state.broken():
        print(f"warning: plugin '{info.name}' is broken: {'; '.join(info.errors)}")
    sections = build_report(runs, state.registry, data, args.samples)
    files = write_report(sections, Path(args.out), args.title)
    print(f"wrote {files.markdown}, {files.html} and {len(files.figures)} figures")
    return skipped_files(failures)
