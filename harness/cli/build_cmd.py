"""`python -m harness build NAME ...`: run a registered builder (`diagnose` runs its checking part the same way)."""

from __future__ import annotations

import argparse
import logging
import sys

from harness.contract.builder import Builder
from harness.errors import EXIT_USAGE, ConfigError
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry


class BuildError(ConfigError):
    """A builder refused its input (no usable video, bad flags, a folder built another way)."""


def list_builders(command: str, rows: list[tuple[str, str]], asked: bool) -> int:
    """`command` without a name (or with --help): the names it takes, each with its description."""
    print(f"usage: python -m harness {command} NAME [flags]\n\n{command} commands:")
    for name, description in rows:
        print(f"  {name:24} {description}")
    return 0 if asked else EXIT_USAGE


def run_builder(command: str, name: str, entry: Entry, argv: list[str]) -> int:
    """Build the registered builder `entry`, parse its flags from argv and run it; the exit code it returns."""
    builder: Builder = entry.load()()
    parser = argparse.ArgumentParser(
        prog=f"python -m harness {command} {name}", description=entry.description
    )
    builder.add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        code = builder.run(args)
    except ValueError as exc:  # builders raise ValueError for what the user can fix (see Builder.run)
        logging.getLogger("harness.build").debug("%s %s failed", command, name, exc_info=True)
        raise BuildError(f"{command} {name}: {exc}") from exc
    if code:
        print(f"{command} {name}: finished with exit code {code}", file=sys.stderr)
    return int(code or 0)


def main(argv: list[str]) -> int:
    """Run the builder named by the first word (builder parts, names with a dot, are not commands)."""
    state = load_plugins()
    if not argv or argv[0] in ("-h", "--help"):
        rows = [
            (e.name, e.description)
            for e in state.registry.entries("builder")
            if "." not in e.name and not e.name.startswith("diagnose-")
        ]
        return list_builders("build", rows, asked=bool(argv))
    return run_builder("build", argv[0], state.registry.get("builder", argv[0]), argv[1:])
