"""`--verbosity LEVEL`, taken out of the command line before the subcommand sees it (any position works)."""

from __future__ import annotations

from harness.errors import ConfigError

VERBOSITY_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


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
                raise ConfigError(f"--verbosity: '{value}' is not one of {', '.join(VERBOSITY_LEVELS)}")
        else:
            rest.append(arg)
        i += 1
    return level, rest
