"""Files written whole or not at all, and files from others read only when they are what they claim: the one
atomic writer and the one bounded reader of the project (plugins reach both via harness.api).

Every file the harness, a model or a builder writes for others to read (results, samples, cache entries,
videos, dataset files) goes to a fresh temporary name beside its target and is renamed over it in one
step, so a reader (another process, a rerun after a kill) sees the old file or the whole new one, never
half of one. Temporary names start with "." and end in ".tmp" (or ".tmp" plus the target's suffix, for
writers that choose the format from it), so folder scans skip them and stale ones are recognisable.

A file someone else made (a split, a task YAML, a manifest, a results file) is opened only after a stat says it
is a regular file within a size bound, without blocking (a FIFO named `test.jsonl` would otherwise hang the
run), and checked again once open: `open_regular`, `read_text_file`, `read_json_file`.
"""

from __future__ import annotations

import json
import os
import stat
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Union

from harness.errors import DataError, describe_os_error

PathLike = Union[str, os.PathLike]
#: the largest dataset file (split, manifest, release JSON) read whole; a larger one is refused, naming it
MAX_DATA_FILE_BYTES = 2 << 30
#: the deepest nesting of objects and lists a results or samples file may have (the harness writes about 12)
MAX_JSON_DEPTH = 64


def temporary_name(path: Path, keep_suffix: bool = False) -> Path:
    """A fresh hidden name beside `path` (unique per process and call, so threads and processes writing
    the same target never share one): `.NAME.PID.RANDOM.tmp`, plus `path`'s suffix with `keep_suffix`."""
    tail = f".tmp{path.suffix}" if keep_suffix else ".tmp"
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}{tail}")


@contextmanager
def atomic_path(path: PathLike, keep_suffix: bool = False) -> Iterator[Path]:
    """A temporary path to write `path`'s new content to; a clean exit renames it over `path`.

    The parent folder is created first. When the block raises, the temporary file is removed and the
    exception propagates (`path` keeps its old content). `keep_suffix` ends the temporary name with
    `path`'s suffix, for writers that pick the format from it (PyAV: `.mp4`)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_name(target, keep_suffix)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the original error is the one worth reporting
            pass
        raise


def write_atomic(path: PathLike, data: Union[str, bytes], fsync: bool = False) -> None:
    """Write `data` (text as UTF-8, newlines as given) to `path` through `atomic_path`.

    `fsync` flushes the bytes to the disk before the rename, for files that must survive a power cut
    once written (results and samples files); caches and rebuildable outputs skip its cost. Raises the
    OSError of a failed write (a full disk, no permission) after removing the temporary file."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(payload)
            if fsync:
                f.flush()
                os.fsync(f.fileno())


def open_regular(
    path: PathLike, what: str, limit: int = MAX_DATA_FILE_BYTES, error: Callable[[str], Exception] = DataError
) -> BinaryIO:
    """`path` opened for binary reading once it is known to be a regular file of at most `limit` bytes; else
    `error("PATH: why; give a WHAT")`. Never blocks on a FIFO (O_NONBLOCK), and checks the opened file again
    (it may have been swapped after the stat)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, device or socket)"
            raise error(f"{path}: {kind}; give a {what}")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:  # missing, no permission, ...: "PATH: No such file or directory; check ..."
        raise error(describe_os_error(exc, path)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
        os.close(fd)
        why = f"{st.st_size} bytes, over the limit of {limit}" if stat.S_ISREG(st.st_mode) else "not a regular file"
        raise error(f"{path}: {why}; give a {what}")
    return os.fdopen(fd, "rb")


def read_text_file(
    path: PathLike, what: str, limit: int = MAX_DATA_FILE_BYTES, error: Callable[[str], Exception] = DataError
) -> str:
    """A regular file's UTF-8 text (a leading byte-order mark dropped), read through `open_regular`; text that
    is not UTF-8 is `error` naming the file and the byte."""
    with open_regular(path, what, limit, error) as f:
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew after the check
        raise error(f"{path}: over the limit of {limit} bytes; give a {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); give a {what}") from None


def read_json_file(
    path: PathLike, what: str, limit: int = MAX_DATA_FILE_BYTES, error: Callable[[str], Exception] = DataError
) -> Any:
    """A regular file's JSON value (`read_text_file`); JSON that does not parse, or nests too deeply to, is
    `error` naming the file and the line."""
    text = read_text_file(path, what, limit, error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}); give a {what}") from None
    except RecursionError:
        raise error(f"{path}: JSON nested too deeply to read; give a {what}") from None
