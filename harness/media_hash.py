"""Content hashes of videos, computed once: a rerun reads no video to key its requests.

A video's identity is the sha256 of its bytes (a folder of frame images: `harness.frames.folder.
folder_identity`, its frames' names and bytes in frame order). Hashes are remembered per file version, (path, device, inode, size,
modification time), in memory and, once `set_store(folder)` names a folder (the evaluator uses `<cache_dir>/hashes`),
on disk: one tiny file per version, written atomically, so processes sharing a cache dir share hashes and
a damaged entry is simply recomputed. `hash_files` hashes the videos not yet known in parallel (hashlib
releases the GIL) with a progress bar, before the first request is keyed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import threading
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

log = logging.getLogger("harness.media")

HASH_VERSION = 1  # bump when what is hashed changes
_DIGEST_LEN = 32
_memo: dict[tuple, str] = {}
_lock = threading.Lock()
_store: Optional[Path] = None


def set_store(folder: Optional[Path | str]) -> None:
    """Remember hashes on disk under `folder` from now on (None: in memory only, e.g. with --no_cache)."""
    global _store
    _store = Path(folder) if folder is not None else None


def _check(path: Path) -> os.stat_result:
    from harness.frames.probe import check_file  # lazy: harness.frames imports harness.media

    return check_file(path)


def _frame_files(folder: Path) -> list[Path]:
    from harness.frames.folder import frame_files  # the one definition of a frame folder's frames

    return frame_files(folder)


def version_key(path: Path, st: os.stat_result) -> tuple:
    """What identifies one version of a file without reading it: path, device, inode, size and mtime (and,
    for a frame folder, the same of every image in it). No symlink resolution: the inode names the file."""
    key: tuple = (os.path.abspath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if stat.S_ISDIR(st.st_mode):
        inner = []
        for f in _frame_files(path):
            s = f.stat()
            inner.append((f.name, s.st_size, s.st_mtime_ns, s.st_ino))
        key += (tuple(inner),)
    return key


def _store_file(key: tuple) -> Optional[Path]:
    if _store is None:
        return None
    name = hashlib.sha256(json.dumps([HASH_VERSION, *key]).encode()).hexdigest()[:40]
    return _store / name[:2] / name


def _valid(digest: str) -> bool:
    return len(digest) == _DIGEST_LEN and all(c in "0123456789abcdef" for c in digest)


def known_digest(key: tuple) -> Optional[str]:
    """The remembered hash of a file version (memory, then the store), or None."""
    with _lock:
        hit = _memo.get(key)
    if hit is not None:
        return hit
    where = _store_file(key)
    if where is None:
        return None
    try:
        digest = where.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not _valid(digest):
        return None
    with _lock:
        _memo[key] = digest
    return digest


def _remember(key: tuple, digest: str) -> None:
    with _lock:
        _memo[key] = digest
    where = _store_file(key)
    if where is None:
        return
    tmp = where.with_name(f".{where.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(digest, encoding="ascii")
        os.replace(tmp, where)
    except OSError as exc:  # a full or read-only cache dir: hashes stay in memory, the run goes on
        tmp.unlink(missing_ok=True)
        log.debug("content hash of %s not stored in %s: %s", key[0], _store, exc)


def _read_digest(path: Path, st: os.stat_result) -> str:
    if stat.S_ISDIR(st.st_mode):
        from harness.frames.folder import folder_identity  # frames' names and bytes, in frame order

        return folder_identity(path)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:_DIGEST_LEN]


def content_hash(path: str | os.PathLike) -> str:
    """The content identity of a video file or frame folder (memoised; read at most once per version).

    Raises MediaError (missing, not_a_file, empty, unreadable) before opening anything that is not a
    readable regular file or frame folder, so a FIFO never blocks and a directory never crashes.
    """
    from harness.frames.errors import MediaError

    p = Path(path)
    st = _check(p)
    try:
        key = version_key(p, st)
        digest = known_digest(key)
        if digest is None:
            digest = _read_digest(p, st)
            _remember(key, digest)
    except OSError as exc:
        raise MediaError(p, "unreadable", f"{type(exc).__name__}: {exc.strerror or exc}") from None
    return digest


def hash_files(
    paths: Iterable[str | os.PathLike], workers: Optional[int] = None, progress: bool = False
) -> int:
    """Hash every distinct path not yet known, in parallel threads, with a progress bar; returns how many
    were read. Unreadable paths are skipped here (keying the request reports them as media errors)."""
    from harness.frames.errors import MediaError

    todo = []
    for p in dict.fromkeys(str(x) for x in paths):
        try:
            if known_digest(version_key(Path(p), _check(Path(p)))) is None:
                todo.append(p)
        except (MediaError, OSError):
            continue
    if not todo:
        return 0
    from tqdm import tqdm

    workers = workers or min(8, os.cpu_count() or 1, len(todo))
    bar = tqdm(total=len(todo), desc="hashing videos", unit="video", disable=not progress, leave=False)

    def one(p: str) -> None:
        try:
            content_hash(p)
        except MediaError:
            pass
        bar.update(1)

    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(one, todo))
    finally:
        bar.close()
    return len(todo)
