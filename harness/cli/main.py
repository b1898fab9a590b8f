"""Entry point: dispatch to a subcommand, or run an evaluation when the first word is a flag.

Library code raises HarnessError subclasses; only this function turns them into messages and exit codes.
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Optional

from harness.errors import EXIT_INTERRUPTED, EXIT_USAGE, ConfigError, HarnessError, describe_os_error

SUBCOMMANDS = {
    "run": "harness.cli.run_cmd",
    "ls": "harness.cli.ls_cmd",
    "build": "harness.cli.build_cmd",
    "diagnose": "harness.cli.build_cmd",
    "demo": "harness.cli.demo_cmd",
    "report": "harness.cli.report_cmd",
    "compare": "harness.cli.report_cmd",
    "leaderboard": "harness.cli.report_cmd",
    "judge-calibrate": "harness.cli.judge_cmd",
    "import": "harness.cli.import_cmd",
}

VERBOSITY_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

USAGE = """usage: python -m harness [--verbosity LEVEL] --tasks A,B --model NAME [flags]   (see --help)
       python -m harness ls tasks|models|metrics|builders|judges|plugins
       python -m harness build NAME [builder flags]
       python -m harness diagnose NAME DIR
       python -m harness demo --out DIR
       python -m harness report RESULTS... --out DIR
       python -m harness compare BASE NEW
       python -m harness leaderboard RESULTS... --out FILE
       python -m harness judge-calibrate --judge NAME --task TASK
       python -m harness import NAME FILE... --out DIR"""

SUBCOMMAND_HELP = """subcommands (each takes --help):
  run              evaluate a model on tasks (the default when the first word is a flag)
  ls               list tasks, models, metrics, builders, judges or plugins
  build            build a benchmark dataset from a seed (cyclist, tempcloze, rvtbench)
  diagnose         check a built dataset folder
  demo             build a tiny demo dataset and run it end to end
  report           tables and plots from results files
  compare          compare two results files (fails on regressions beyond noise)
  leaderboard      one table from many results files
  judge-calibrate  a judge's agreement with a task's calibration sets

--verbosity DEBUG|INFO|WARNING|ERROR (any position, default WARNING) sets the log level."""


def pop_verbosity(argv: list[str]) -> tuple[str, list[str]]:
    """Take `--verbosity LEVEL` (or `--verbosity=LEVEL`) out of argv; the level is upper-cased and checked."""
    level, rest, i = "WARNING", [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--verbosity" or arg.startswith("--verbosity="):
            if "=" in arg:
                value = arg.split("=", 1)[1]
            elif i + 1 < len(argv):
                value, i = argv[i + 1], i + 1
            else:
                value = ""
            level = value.upper()
            if level not in VERBOSITY_LEVELS:
                raise ConfigError(
                    f"--verbosity: '{value}' is not one of {', '.join(VERBOSITY_LEVELS)}"
                )
        else:
            rest.append(arg)
        i += 1
    return level, rest


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        level, argv = pop_verbosity(argv)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", force=True)
    logging.getLogger("harness").setLevel(level)
    if not argv:
        print(USAGE)
        return 0
    command = argv[0] if argv[0] in SUBCOMMANDS else "run"
    rest = argv[1:] if argv[0] in SUBCOMMANDS else argv
    try:
        module = importlib.import_module(SUBCOMMANDS[command])
    except ModuleNotFoundError as exc:
        print(f"error: the '{command}' command is not available in this install ({exc})", file=sys.stderr)
        return 2
    try:
        return int(module.main(rest, command) or 0)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a user's path (missing, a file where a folder goes, a full disk): no traceback
        logging.getLogger("harness").debug("OSError in '%s'", command, exc_info=True)
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(
            "interrupted: finished samples are in the cache; rerun the same command to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
