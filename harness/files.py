"""Files written whole or not at all: the one atomic writer of the project (plugins reach it via harness.api).

Every file the harness, a model or a builder writes for others to read (results, samples, cache entries,
videos, dataset files) goes to a fresh temporary name beside its target and is renamed over it in one
step, so a reader (another process, a rerun after a kill) sees the old file or the whole new one, never
half of one. Temporary names start with "." and end in ".tmp" (or ".tmp" plus the target's suffix, for
writers that choose the format from it), so folder scans skip them and stale ones are recognisable.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Union

PathLike = Union[str, os.PathLike]


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
