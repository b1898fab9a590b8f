"""What the subcommands' argument parsers share: a parser that reports a user's mistake as a ConfigError
(exit 2 through the CLI, no traceback) and the help of the flags several commands take."""

from __future__ import annotations

import argparse
from typing import NoReturn

from harness.errors import ConfigError

ALLOW_INCOMPLETE_HELP = 'also use runs whose results file says "complete": false (see docs/cli.md, exit 5)'


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises ConfigError (exit 2 through the CLI) instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"{self.prog}: {message} (see --help)")
