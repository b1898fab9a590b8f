"""`python -m harness grid GRID.yaml [--executor local|ray|slurm]`: every model of the grid file on every
task, resumable as a whole, locally or on a Ray or SLURM cluster (harness/grid/, docs/cli.md "grid")."""

from __future__ import annotations

from pathlib import Path

from harness.cli.args import ArgumentParser
from harness.grid.driver import run_grid
from harness.grid.spec import EXECUTORS, load_grid, parse_grid


def main(argv: list[str]) -> int:
    """Run or resume a grid; exit 0 only when every cell is complete (5 otherwise, 2 for a bad grid file)."""
    p = ArgumentParser(prog="python -m harness grid", description="run a model x task grid, resumable")
    p.add_argument("grid", type=Path, help="the grid file (YAML): output_path, tasks, models, run options")
    p.add_argument("--executor", choices=EXECUTORS, default=None, help="overrides the grid file's executor")
    p.add_argument("--max_parallel", type=int, default=None, help="overrides the grid file's max_parallel")
    args = p.parse_args(argv)
    grid = load_grid(args.grid)
    updates = {k: v for k, v in (("executor", args.executor), ("max_parallel", args.max_parallel)) if v}
    grid = parse_grid({**grid.model_dump(), **updates}, str(args.grid)) if updates else grid
    return run_grid(grid, str(args.grid))
