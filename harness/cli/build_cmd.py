"""`python -m harness build NAME ...` and `python -m harness diagnose NAME ...`: run a registered builder.

`diagnose NAME` runs the builder part registered as `NAME.diagnose` (or `diagnose-NAME`).
"""

from __future__ import annotations

import argparse
import logging
import sys

from harness.contract.builder import Builder
from harness.errors import EXIT_USAGE, ConfigError
from harness.plugins.loading import load_plugins


class BuildError(ConfigError):
    """A builder refused its input (no usable video, bad flags, a folder built another way)."""


def main(argv: list[str], command: str = "build") -> int:
    state = load_plugins()
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: python -m harness {command} NAME [flags]\n\n{command} commands:")
        for e in state.registry.entries("builder"):
            if command == "build" and "." not in e.name and not e.name.startswith("diagnose-"):
                print(f"  {e.name:24} {e.description}")
            elif command == "diagnose" and (e.name.endswith(".diagnose") or e.name.startswith("diagnose-")):
                print(f"  {e.name.removesuffix('.diagnose').removeprefix('diagnose-'):24} {e.description}")
        return 0 if argv else EXIT_USAGE
    name = argv[0]
    if command == "diagnose":
        name = (
            f"{argv[0]}.diagnose"
            if state.registry.has("builder", f"{argv[0]}.diagnose")
            else f"diagnose-{argv[0]}"
        )
    entry = state.registry.get("builder", name)
    builder: Builder = entry.load()()
    parser = argparse.ArgumentParser(
        prog=f"python -m harness {command} {argv[0]}", description=entry.description
    )
    builder.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    try:
        code = builder.run(args)
    except ValueError as exc:  # builders raise ValueError for what the user can fix (see Builder.run)
        logging.getLogger("harness.build").debug("%s %s failed", command, argv[0], exc_info=True)
        raise BuildError(f"{command} {argv[0]}: {exc}") from exc
    if code:
        print(f"{command} {argv[0]}: finished with exit code {code}", file=sys.stderr)
    return int(code or 0)
