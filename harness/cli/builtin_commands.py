"""The core's subcommands, registered through `register_commands` exactly as a plugin registers its own.

`COMMANDS` is the one table of them, a row per command: its name, the "module:function" under harness/cli/ that
runs it (imported only when the command runs), a one-line description and the usage line `python -m harness`
prints with no arguments.
"""

from __future__ import annotations

from harness.hookspecs import KINDS, hookimpl

#: what `ls` lists: each registry kind, or the plugins themselves
LS_WORDS = (*(kind.plural for kind in KINDS), "plugins")


#: (name, "module:function", description, usage): one row per core subcommand
COMMANDS: tuple[tuple[str, str, str, str], ...] = (
    (
        "run",
        "harness.cli.run_cmd:main",
        "evaluate a model on tasks (the default when the first word is a flag)",
        "[--verbosity LEVEL] --tasks A,B --model NAME [flags]   (see --help)",
    ),
    (
        "ls",
        "harness.cli.ls_cmd:main",
        "list what the plugins registered, one kind at a time (see ls --help), or the plugins themselves",
        "ls " + "|".join(LS_WORDS),
    ),
    (
        "build",
        "harness.cli.build_cmd:main",
        "build a benchmark dataset from a seed (cyclist, tempcloze, rvtbench)",
        "build NAME [builder flags]",
    ),
    (
        "diagnose",
        "harness.cli.diagnose_cmd:main",
        "check a built dataset folder",
        "diagnose NAME DIR",
    ),
    (
        "demo",
        "harness.cli.demo_cmd:main",
        "build a tiny demo dataset and run it end to end",
        "demo --out DIR",
    ),
    (
        "report",
        "harness.cli.report_cmd:main",
        "tables and plots from results files",
        "report RESULTS... --out DIR",
    ),
    (
        "compare",
        "harness.cli.compare_cmd:main",
        "compare two results files (fails on regressions beyond noise)",
        "compare BASE NEW",
    ),
    (
        "leaderboard",
        "harness.cli.leaderboard_cmd:main",
        "one table from many results files",
        "leaderboard RESULTS... --out FILE",
    ),
    (
        "judge-calibrate",
        "harness.cli.judge_cmd:main",
        "a judge's agreement with a task's calibration sets",
        "judge-calibrate --judge NAME --task TASK",
    ),
    (
        "import",
        "harness.cli.import_cmd:main",
        "score another tool's per-item outputs as a run of the harness (import NAME: an importer)",
        "import NAME FILE... --out DIR",
    ),
    (
        "submission",
        "harness.cli.submission_cmd:main",
        "check a leaderboard submission before anything runs it (exit 2: one line per problem)",
        "submission check FILE [--name submissions/NAME.json] [--allow CONFIG]",
    ),
    (
        "new-task",
        "harness.cli.new_task_cmd:main",
        "write a working task plugin to start from (YAML, template, hooks, data maker, test, pyproject.toml)",
        "new-task NAME [--out DIR]",
    ),
    (
        "cache",
        "harness.cli.cache_cmd:main",
        "what the cache dir holds (responses, frames, hashes: size, age) and pruning it",
        "cache [show|prune] [--older-than 7d] [--max-size 2G] [--model M] [--task T]",
    ),
    (
        "grid",
        "harness.cli.grid_cmd:main",
        "every model of a grid file on every task, resumable, locally or on Ray / SLURM",
        "grid GRID.yaml [--executor local|ray|slurm]",
    ),
)


@hookimpl
def register_commands(register):
    """The core's subcommands: every row of `COMMANDS`."""
    for name, target, description, usage in COMMANDS:
        register(name, target, description, usage=usage)
