"""Interrupts (SIGINT, SIGTERM, SIGHUP) end a run the same way, once, and never half-way through a commit.

The command line installs `install()`: the first of these signals raises `Interrupted` (a KeyboardInterrupt,
so every `finally` runs) and every later one is only noted, so a second Ctrl-C cannot break the cleanup that
keeps the answers that arrived (harness.engine.generation commits them) nor change the exit code. Inside
`protected()` (a cache commit) the first signal is held and raised when the block ends. The exit code is
128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP (docs/cli.md).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from harness.errors import EXIT_INTERRUPTED

#: the signals that stop a run (each where the platform has it)
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupted(KeyboardInterrupt):
    """The run was stopped by `signum`; `exit_code` is 128 + signum."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum
        self.exit_code = 128 + int(signum)


class _State:
    first: Optional[int] = None  # the signal that stopped the run
    held: Optional[int] = None  # a signal that came inside `protected()`, raised at its end
    depth = 0  # nesting of `protected()` blocks


_state = _State()


def _handler(signum: int, _frame: Any) -> None:
    if _state.first is not None:
        return  # already stopping (or ended): a later signal changes nothing
    _state.first = signum
    if _state.depth:
        _state.held = signum
        return
    raise Interrupted(signum)


def install() -> None:
    """Route SIGINT, SIGTERM and SIGHUP to `Interrupted` (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    _state.first = _state.held = None
    _state.depth = 0
    for sig in SIGNALS:
        signal.signal(sig, _handler)


def settle() -> None:
    """The command has ended: a signal from now on is only noted (the exit code stays the command's)."""
    if _state.first is None:
        _state.first = 0


def interrupted() -> bool:
    """Whether a stopping signal has come (the run is ending)."""
    return bool(_state.first)


@contextmanager
def protected() -> Iterator[None]:
    """A block no stopping signal interrupts half-way (a commit); one that comes is raised after it."""
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
        if not _state.depth and _state.held is not None:
            held, _state.held = _state.held, None
            raise Interrupted(held)


def exit_code(exc: BaseException) -> int:
    """The documented exit code of an interrupt: 128 + the signal (130 for a plain KeyboardInterrupt)."""
    return getattr(exc, "exit_code", EXIT_INTERRUPTED)
