"""Global flags before the subcommand: `python -m harness --include_path X ls tasks` is `ls tasks
--include_path X`. Each subcommand parses its own flags, so flags written before its name move behind it.
(`--verbosity` is taken out of any position by harness/cli/verbosity.py.)"""

from __future__ import annotations

#: flags that take one value and that several subcommands accept (run, ls, report, judge-calibrate, import)
GLOBAL_FLAGS = ("--include_path",)


def subcommand_first(argv: list[str]) -> list[str]:
    """argv with the global flags written before a subcommand's name moved behind it; unchanged when the
    first word after them is a flag (the `run` form, which takes them where they are)."""
    leading, i = [], 0
    while i < len(argv):
        arg = argv[i]
        if arg in GLOBAL_FLAGS and i + 1 < len(argv):
            leading += argv[i : i + 2]
            i += 2
        elif arg.split("=", 1)[0] in GLOBAL_FLAGS and "=" in arg:
            leading.append(arg)
            i += 1
        else:
            break
    if not leading or i >= len(argv) or argv[i].startswith("-"):
        return argv
    return [argv[i], *argv[i + 1 :], *leading]
