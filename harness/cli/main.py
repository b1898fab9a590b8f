"""Entry point: dispatch to a subcommand, or run an evaluation when the first word is a flag.

Library code raises HarnessError subclasses; only this function turns them into messages and exit codes.
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Optional

from harness.errors import EXIT_INTERRUPTED, EXIT_USAGE, HarnessError, describe_os_error

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

USAGE = """usage: python -m harness --tasks A,B --model NAME [flags]   (see --help)
       python -m harness ls tasks|models|metrics|builders|judges|plugins
       python -m harness build NAME [builder flags]
       python -m harness diagnose NAME DIR
       python -m harness demo --out DIR
       python -m harness report RESULTS... --out DIR
       python -m harness compare BASE NEW
       python -m harness leaderboard RESULTS... --out FILE
       python -m harness judge-calibrate --judge NAME --task TASK
       python -m harness import NAME FILE... --out DIR"""


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
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
