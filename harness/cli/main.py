"""Entry point: run the subcommand the first word names, or `run` when the first word is a flag.

Subcommands are registered through the `register_commands` hook (the core's in harness/cli/builtin_commands.py,
one module per command under harness/cli/; a plugin adds its own the same way) and found by
harness/cli/commands.py. Library code raises HarnessError subclasses; only this function turns them into
messages and exit codes.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Optional

from harness.cli.commands import RUN, find_command, usage
from harness.cli.global_flags import subcommand_first
from harness.cli.verbosity import pop_verbosity
from harness.engine.interrupts import exit_code, install, interrupted, settle
from harness.errors import EXIT_BROKEN_PIPE, EXIT_USAGE, ConfigError, HarnessError, describe_os_error
from harness.report.escaping import TerminalFormatter, terminal_text


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        level, argv = pop_verbosity(argv)
        argv = subcommand_first(argv)  # `--include_path X ls tasks` works as `ls tasks --include_path X`
    except ConfigError as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return exc.exit_code
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", force=True)
    for handler in logging.getLogger().handlers:  # names and messages from files are shown, not obeyed
        handler.setFormatter(TerminalFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.getLogger("harness").setLevel(level)
    name = RUN
    try:
        if not argv:
            print(usage())
            return 0
        name, rest = (RUN, argv) if argv[0].startswith("-") else (argv[0], argv[1:])
        command = find_command(name).load()
        return int(command(rest) or 0)
    except HarnessError as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # the reader of stdout left (`... | head`): stop quietly, as a pipe's writer does
        return _reader_left()
    except OSError as exc:  # a user's path (missing, a file where a folder goes, a full disk): no traceback
        logging.getLogger("harness").debug("OSError in '%s'", name, exc_info=True)
        print(f"error: {terminal_text(describe_os_error(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        print(
            f"interrupted ({exc or 'SIGINT'}): every answer that arrived is in the cache; rerun the same "
            "command to resume",
            file=sys.stderr,
        )
        return exit_code(exc)


def _reader_left() -> int:
    """Stdout's reader is gone: point stdout at /dev/null (the exit's flush has nowhere to fail) and say so
    only in the exit code."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_BROKEN_PIPE


def entry() -> None:
    """The process's entry point (`python -m harness`, the `harness` script): SIGINT, SIGTERM and SIGHUP stop
    a command once (harness.engine.interrupts), and an interrupted command exits at once with its code, 128 +
    the signal, without waiting for threads still blocked on a server (their answers had not arrived)."""
    install()
    try:
        code = main()
    except KeyboardInterrupt as exc:  # a signal between the command's end and here
        code = exit_code(exc)
    try:
        sys.stdout.flush()  # what is still buffered, while a closed pipe can be told apart
    except BrokenPipeError:
        code = _reader_left()
    settle()
    if interrupted():
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        os._exit(code)
    raise SystemExit(code)
