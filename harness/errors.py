"""Error types of the harness, each carrying a message that names the thing and what to do.

Exit codes used by the CLI (documented in docs/cli.md):
0 success; 1 the run finished but `--strict` found sample errors, or a command's check failed;
2 usage or configuration error (unknown name, bad config, missing data); 3 a model or plugin failed to load
or generation failed fatally; 4 `compare` found a regression; 5 the run finished and its results file is
written but is incomplete (a task scored nothing, or its error share exceeds `--max_error_rate`);
130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import difflib
import errno
import os
from collections.abc import Iterable

EXIT_OK = 0
EXIT_STRICT = 1
EXIT_USAGE = 2
EXIT_RUNTIME = 3
EXIT_REGRESSION = 4
EXIT_INCOMPLETE = 5
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: stdout's reader left (`... | head`), as a shell reports a writer it killed


class HarnessError(Exception):
    """Base class: an error the CLI reports as one clear message with an exit code."""

    exit_code = EXIT_RUNTIME


class ConfigError(HarnessError):
    """A task config, run config or command-line value is wrong."""

    exit_code = EXIT_USAGE


class UnknownNameError(ConfigError):
    """A task, model, metric, builder or judge name is not registered."""

    def __init__(self, kind: str, name: str, known: Iterable[str]):
        self.kind, self.name = kind, name
        known = sorted(known)
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        if not close:
            close = [k for k in known if name.lower() in k.lower() or k.lower() in name.lower()][:3]
        msg = f"unknown {kind} '{name}'"
        if close:
            msg += f"; did you mean {', '.join(repr(c) for c in close)}?"
        msg += f" (run `python -m harness ls {kind}s` to list all {len(known)})"
        super().__init__(msg)
        self.suggestions = close


class DataError(ConfigError):
    """A dataset is missing or malformed as a whole (not a single sample)."""


class PluginConflictError(ConfigError):
    """A name registered by two sources (two plugins, two --include_path folders, a folder and a plugin): never
    a silent winner; the message names both (exit 2)."""


class HookContractError(ConfigError, TypeError):
    """A task hook that does not fit its contract (harness.contract.hooks): a reference that does not resolve
    or a signature that does not fit, found when the task loads (exit 2), or a value of the wrong type
    returned at run time (a counted per-sample error where the hook runs per sample)."""


class ModelArgsError(ConfigError, ValueError):
    """A `--model_args` (or `--judge_args`) key or value that a model adapter does not accept (exit 2).

    Also a ValueError, so code that builds adapters directly and catches ValueError keeps working."""


class UnsuitableModelError(ConfigError):
    """A model that cannot work on a task, refused before any model call (exit 2): it cannot answer the
    task's answer type (`TaskConfig.answer_type`), or the task's data lacks what it needs (`prior` without
    training rows, `random` without an answer space). `task` names the task refused, when there is one."""

    def __init__(self, message: str, task: str | None = None):
        super().__init__(message)
        self.task = task


class ModelLoadError(HarnessError):
    """A model (or judge) could not be loaded: its checkpoint is missing, unreachable or unreadable."""

    exit_code = EXIT_RUNTIME


class StrictModeError(HarnessError):
    """A per-sample error under --strict."""

    exit_code = EXIT_STRICT


class GenerationTimeout(Exception):
    """A model call an adapter cut off at its deadline (a served model's `request_deadline`): recorded as a
    per-sample error of kind `timeout`, not `generation` (docs/results.md). Adapters raise or return a subclass."""

    reason = "timeout"


_OS_HINTS = {
    errno.ENOSPC: "free space on that disk or choose another folder",
    errno.EDQUOT: "free space (disk quota exceeded) or choose another folder",
    errno.EROFS: "the filesystem is read-only: choose another folder",
    errno.EACCES: "check the permissions, or choose another folder",
    errno.EPERM: "check the permissions, or choose another folder",
    errno.ENOENT: "check that the path exists",
    errno.ENOTDIR: "a part of the path is a file, not a folder: choose another path",
    errno.EISDIR: "the path is a folder: give a file",
}


def os_error_hint(exc: OSError) -> str:
    """What to do about an OSError on a user's path, e.g. ENOSPC -> free space or choose another folder."""
    return _OS_HINTS.get(exc.errno or -1, "check the path and the disk it is on")


def describe_os_error(exc: OSError, path: str | os.PathLike | None = None) -> str:
    """'PATH: No space left on device; free space ...' naming the path the OSError is about."""
    where = path if path is not None else (exc.filename or "")
    reason = exc.strerror or str(exc)
    return f"{where}: {reason}; {os_error_hint(exc)}" if where else f"{reason}; {os_error_hint(exc)}"


class OutputError(HarnessError):
    """An output file (results, samples, report) could not be written; the message names it."""

    def __init__(self, path: str | os.PathLike, exc: OSError):
        self.path = str(path)
        super().__init__(f"cannot write {describe_os_error(exc, path)}")
