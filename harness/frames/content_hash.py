"""Content hashes of videos, computed once per run: a rerun reads no video to key its requests.

A video's identity is the sha256 of its bytes (a folder of frame images: `harness.frames.folder.
folder_identity`, its frames' names and bytes in frame order). A run remembers hashes in its `HashStore`, per
file version (path, device, inode, size, modification time): in memory and, when the store names a folder
(the evaluator's is `<cache_dir>/hashes`, none with --no_cache), on disk in the hash index
(`harness.cache.hash_index`): one append-only log per process, read once per run. The store is made by the
run and passed to what keys media (`hash_files`, `media_identity`, `harness.frames.loader.clip_key`,
`harness.cache.keys.response_key`), so two runs in one process (a grid worker's cells, two `evaluate()`
calls) each fill their own cache dir's index; nothing here is module-global. `hash_files` hashes the videos
not yet known in parallel (hashlib releases the GIL) with a progress bar, before the first request is keyed,
and hands back every digest so keying stats each video once.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional

from harness.cache.hash_index import HashIndex
from harness.frames.errors import MediaError
from harness.frames.folder import folder_identity, frame_files
from harness.frames.probe import check_file

log = logging.getLogger("harness.data.media")

HASH_VERSION = 1  # bump when what is hashed changes
_DIGEST_LEN = 32


def _valid(digest: str) -> bool:
    return len(digest) == _DIGEST_LEN and all(c in "0123456789abcdef" for c in digest)


class HashStore:
    """The content hashes one run remembers: in memory, and under `folder` (None: memory only, e.g. with
    --no_cache) in the on-disk hash index another process or a later run reads. Close it when the run ends
    (a later hash reopens the index's log)."""

    def __init__(self, folder: Optional[Path | str] = None) -> None:
        self.folder = Path(folder) if folder is not None else None
        self._index = HashIndex(self.folder, HASH_VERSION) if self.folder is not None else None
        self._memo: dict[tuple, str] = {}
        self._lock = threading.Lock()

    def known(self, key: tuple, refresh: bool = False) -> Optional[str]:
        """The remembered hash of a file version (memory, then the on-disk index), or None. `refresh`: on a
        miss, first read what other processes added to the index since it was loaded."""
        hit = self._memo.get(key)
        if hit is not None or self._index is None:
            return hit
        digest = self._index.get(key, refresh=refresh)
        if digest is None or not _valid(digest):
            return None
        with self._lock:
            self._memo[key] = digest
        return digest

    def remember(self, key: tuple, digest: str) -> None:
        """Keep a file version's hash in memory and in the index (a read-only index: in memory only)."""
        with self._lock:
            self._memo[key] = digest
        if self._index is not None:
            self._index.add(key, digest)

    def refresh(self) -> None:
        """Read what other processes added to the index since it was loaded."""
        if self._index is not None:
            self._index.refresh()

    def forget(self) -> None:
        """Drop what is held in memory (as in a new process: only the on-disk index remains)."""
        with self._lock:
            self._memo.clear()
            if self._index is not None:
                self._index.forget()

    def close(self) -> None:
        """Close this process's index log (the run has ended)."""
        if self._index is not None:
            self._index.close()

    def __enter__(self) -> HashStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def version_key(path: str | os.PathLike, st: os.stat_result) -> tuple:
    """What identifies one version of a file without reading it: path, device, inode, size and mtime (and,
    for a frame folder, the same of every image in it). No symlink resolution: the inode names the file."""
    key: tuple = (os.path.abspath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if stat.S_ISDIR(st.st_mode):
        inner = []
        for f in frame_files(Path(path)):
            s = f.stat()
            inner.append((f.name, s.st_size, s.st_mtime_ns, s.st_ino))
        key += (tuple(inner),)
    return key


def _read_digest(path: Path, st: os.stat_result) -> str:
    if stat.S_ISDIR(st.st_mode):
        return folder_identity(path)  # frames' names and bytes, in frame order
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:_DIGEST_LEN]


def _digest(path: str, st: os.stat_result, store: Optional[HashStore], refresh: bool) -> str:
    try:
        if store is None:
            return _read_digest(Path(path), st)
        key = version_key(path, st)
        digest = store.known(key, refresh=refresh)
        if digest is None:
            digest = _read_digest(Path(path), st)
            store.remember(key, digest)
    except OSError as exc:
        raise MediaError(Path(path), "unreadable", f"{type(exc).__name__}: {exc.strerror or exc}") from None
    return digest


def media_identity(path: str | os.PathLike, store: Optional[HashStore] = None) -> str:
    """The content identity of a video file or frame folder: sha256 of its bytes (with `store`: read once per
    file version, remembered there; another process's hashes in its index are picked up).

    Content rather than path, so a moved file keeps its cache entries and a replaced file never serves
    stale ones. Raises MediaError (missing, not_a_file, empty, unreadable) before opening anything that is not a
    readable regular file or frame folder, so a FIFO never blocks and a directory never crashes.
    """
    p = os.fspath(path)
    return _digest(p, check_file(p), store, refresh=True)


def hash_files(
    paths: Iterable[str | os.PathLike],
    store: Optional[HashStore] = None,
    workers: Optional[int] = None,
    progress: bool = False,
) -> dict[str, str]:
    """The content hash of every distinct readable path, hashing those `store` does not know yet in parallel
    threads with a progress bar (and remembering them there; None: a store for this call only). Unreadable
    paths are left out (keying the request reports them as media errors)."""
    store = store if store is not None else HashStore()
    out: dict[str, str] = {}
    todo: list[tuple[str, os.stat_result]] = []
    for p in dict.fromkeys(os.fspath(x) for x in paths):
        try:
            st = check_file(p)
            digest = store.known(version_key(p, st))
        except (MediaError, OSError):
            continue
        if digest is None:
            todo.append((p, st))
        else:
            out[p] = digest
    if not todo:
        return out
    store.refresh()  # another process may have hashed them meanwhile
    from tqdm import tqdm

    workers = workers or min(8, os.cpu_count() or 1, len(todo))
    bar = tqdm(total=len(todo), desc="hashing videos", unit="video", disable=not progress, leave=False)

    def one(item: tuple[str, os.stat_result]) -> None:
        try:
            out[item[0]] = _digest(item[0], item[1], store, refresh=False)
        except MediaError:
            pass
        bar.update(1)

    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(one, todo))
    finally:
        bar.close()
    return out
