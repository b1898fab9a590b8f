"""The subcommands of `python -m harness`: found in the registry (kind "command"), never listed here.

The core's own commands (harness/cli/builtin_commands.py) are looked up without importing any other plugin,
so `python -m harness report ...` starts as fast as before; a word that is not one of them loads every
plugin's `register_commands` (never their task YAMLs), as do the usage and help texts that list them all.
"""

from __future__ import annotations

from harness.plugins.loading import CORE_PLUGIN, load_plugins
from harness.plugins.registry import Entry

RUN = "run"  # the command run when the first word is a flag


def find_command(word: str) -> Entry:
    """The registered command `word`; UnknownNameError (with "did you mean") when no plugin registers it."""
    core = load_plugins(use_entry_points=False, kinds=("command",)).registry
    if core.has("command", word):
        return core.get("command", word)
    return load_plugins(kinds=("command",)).registry.get("command", word)


def all_commands() -> list[Entry]:
    """Every registered command: `run` (the default) first, then the others by name."""
    entries = load_plugins(kinds=("command",)).registry.entries("command")
    return sorted(entries, key=lambda e: (e.name != RUN, e.name))


def usage() -> str:
    """What `python -m harness` prints without arguments: one usage line per command."""
    lines = [f"python -m harness {e.extra.get('usage') or e.name + ' ...'}" for e in all_commands()]
    return "usage: " + "\n       ".join(lines)


def commands_help() -> str:
    """The list of commands under `python -m harness --help`."""
    entries = all_commands()
    width = max(len(e.name) for e in entries) + 2
    rows = []
    for e in entries:
        origin = "" if e.plugin == CORE_PLUGIN else f"  [plugin {e.plugin}]"
        rows.append(f"  {e.name:{width}} {e.description}{origin}")
    return (
        "subcommands (each takes --help):\n"
        + "\n".join(rows)
        + "\n\n--verbosity DEBUG|INFO|WARNING|ERROR (any position, default WARNING) sets the log level."
    )
