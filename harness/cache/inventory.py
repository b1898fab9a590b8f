"""What a cache dir holds and how to make it smaller: `python -m harness cache` reads and prunes through here.

The parts of a cache dir (harness.cache.default_cache_dir): the response cache (`responses*.sqlite`, one row
per model call, with the model and task that made it), decoded frames (`frames/`, size-capped LRU,
harness.frames.cache), videos' content hashes (`hashes/`), extracted archives (`archives/`), media of hub
datasets (`hf_media/`) and lmms-eval submission files (`lmms_submissions/`). Pruning removes whole entries
only (a response row, a frame file), so what is left is always a valid cache: a pruned entry is a miss, which
the next run recomputes.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from harness.errors import ConfigError
from harness.frames.cache import SUFFIX, FrameCache

#: folder parts: name -> what it holds (the response cache is the SQLite files, "responses")
FOLDERS = {
    "frames": "decoded frames (LRU, capped)",
    "hashes": "videos' content hashes",
    "archives": "extracted dataset archives",
    "hf_media": "media of hub datasets",
    "lmms_submissions": "lmms-eval submission files",
}
RESPONSES = "responses"
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_AGES = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass
class Part:
    """One part of the cache dir: entries, bytes on disk and the oldest/newest entry's time (epoch s)."""

    name: str
    what: str
    entries: int = 0
    size: int = 0
    oldest: Optional[float] = None
    newest: Optional[float] = None

    def add(self, size: int, when: float) -> None:
        self.entries += 1
        self.size += size
        self.seen(when)

    def seen(self, when: Optional[float]) -> None:
        """Widen the oldest/newest span to `when` (None: an entry without a time)."""
        if when is not None:
            self.oldest = when if self.oldest is None else min(self.oldest, when)
            self.newest = when if self.newest is None else max(self.newest, when)


def parse_size(text: str) -> int:
    """'500M', '2G', '1.5GB', '1024' -> bytes (binary units); ConfigError naming the value otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if not m:
        raise ConfigError(f"size '{text}' is not a size: write e.g. 500M, 2G or 1.5GB (binary units)")
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def parse_age(text: str) -> float:
    """'30m', '12h', '7d', '2w' -> seconds; ConfigError naming the value otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text.lower())
    if not m:
        raise ConfigError(f"age '{text}' is not an age: write e.g. 30m, 12h, 7d or 2w")
    return float(m.group(1)) * _AGES[m.group(2)]


def human_size(n: float) -> str:
    """Bytes as people read them: '1.4 GiB', '12.0 KiB', '512 B'."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def human_age(when: Optional[float], now: Optional[float] = None) -> str:
    """'3 d ago', '5 min ago', '-' for no entry."""
    if when is None:
        return "-"
    s = max(0.0, (now or time.time()) - when)
    for unit, length in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= length:
            return f"{s / length:.0f} {unit} ago"
    return f"{s:.0f} s ago"


def response_files(cache_dir: Path) -> list[Path]:
    """The response cache's SQLite files (one per writing shard)."""
    return sorted(p for p in Path(cache_dir).glob("responses*.sqlite") if p.is_file())


def _files(folder: Path) -> Iterator[Path]:
    for p in folder.rglob("*"):
        if p.is_file() and not p.is_symlink() and p.name != ".lock":
            yield p


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(str(path), timeout=60.0)


def response_rows(cache_dir: Path) -> list[tuple[str, str, int, Optional[float], Optional[float]]]:
    """(model, task, rows, oldest, newest) of the response cache, over every shard."""
    grouped: dict[tuple[str, str], list] = {}
    for path in response_files(cache_dir):
        with _connect(path) as con:
            query = "SELECT model, task, COUNT(*), MIN(created), MAX(created) FROM responses GROUP BY model, task"
            for model, task, n, lo, hi in con.execute(query):
                g = grouped.setdefault((model or "?", task or "?"), [0, None, None])
                g[0] += n
                g[1] = lo if g[1] is None else min(g[1], lo or g[1])
                g[2] = hi if g[2] is None else max(g[2], hi or g[2])
    return [(m, t, n, lo, hi) for (m, t), (n, lo, hi) in sorted(grouped.items())]


def inventory(cache_dir: Path) -> list[Part]:
    """Every part of the cache dir with its entries, size and ages; files no part claims are "other"."""
    cache_dir = Path(cache_dir)
    responses = Part(RESPONSES, "model replies (SQLite), by model and task")
    for _model, _task, n, lo, hi in response_rows(cache_dir) if cache_dir.is_dir() else []:
        responses.entries += n
        responses.seen(lo)
        responses.seen(hi)
    claimed = set()
    for path in response_files(cache_dir) if cache_dir.is_dir() else []:
        for side in (path, Path(f"{path}-journal"), Path(f"{path}-wal"), Path(f"{path}-shm")):
            if side.is_file():
                responses.size += side.stat().st_size
                claimed.add(side)
    parts = [responses]
    for name, what in FOLDERS.items():
        part = Part(name, what)
        for f in _files(cache_dir / name) if (cache_dir / name).is_dir() else []:
            st = f.stat()
            part.add(st.st_size, st.st_mtime)
        parts.append(part)
    other = Part("other", "anything else in the cache dir")
    for f in _files(cache_dir) if cache_dir.is_dir() else []:
        if f not in claimed and f.relative_to(cache_dir).parts[0] not in FOLDERS:
            st = f.stat()
            other.add(st.st_size, st.st_mtime)
    return [*parts, other]


def prune_responses(
    cache_dir: Path, older_than: Optional[float] = None, model: Optional[str] = None, task: Optional[str] = None
) -> int:
    """Delete response rows made more than `older_than` seconds ago and/or by `model` / for `task`
    (the conditions combine); returns the rows deleted. The files shrink (VACUUM) when rows went."""
    where, args = [], []
    if older_than is not None:
        where.append("created < ?")
        args.append(time.time() - older_than)
    if model is not None:
        where.append("model = ?")
        args.append(model)
    if task is not None:
        where.append("task = ?")
        args.append(task)
    if not where:
        return 0
    deleted = 0
    for path in response_files(cache_dir):
        with _connect(path) as con:
            deleted += con.execute(f"DELETE FROM responses WHERE {' AND '.join(where)}", args).rowcount
        _vacuum(path)
    return deleted


def _vacuum(path: Path) -> None:
    con = _connect(path)
    try:
        con.execute("VACUUM")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # in WAL mode the vacuumed pages sit in the -wal file
    finally:
        con.close()


def prune_frames_older_than(cache_dir: Path, older_than: float) -> int:
    """Delete frame entries not used (read or written) for `older_than` seconds; returns bytes freed."""
    cutoff, freed = time.time() - older_than, 0
    for f in (Path(cache_dir) / "frames").rglob(f"*{SUFFIX}") if (Path(cache_dir) / "frames").is_dir() else []:
        st = f.stat()
        if st.st_mtime < cutoff:
            f.unlink(missing_ok=True)
            freed += st.st_size
    return freed


def shrink_to(cache_dir: Path, max_size: int) -> int:
    """Bring the cache dir under `max_size` bytes: least recently used frames first (the frame cache's own
    LRU eviction, under its lock), then the oldest response rows; returns bytes freed."""
    before = sum(p.size for p in inventory(cache_dir))
    rest = before - next(p.size for p in inventory(cache_dir) if p.name == "frames")
    FrameCache(Path(cache_dir) / "frames", max_bytes=max(0, max_size - rest)).evict()
    while sum(p.size for p in inventory(cache_dir)) > max_size and _drop_oldest_responses(cache_dir, 0.25):
        pass
    return before - sum(p.size for p in inventory(cache_dir))


def _drop_oldest_responses(cache_dir: Path, fraction: float) -> bool:
    """Delete the oldest `fraction` of each response file's rows (at least one); False when none was left."""
    dropped = False
    for path in response_files(cache_dir):
        with _connect(path) as con:
            (n,) = con.execute("SELECT COUNT(*) FROM responses").fetchone()
            if not n:
                continue
            k = max(1, int(n * fraction))
            con.execute("DELETE FROM responses WHERE key IN (SELECT key FROM responses ORDER BY created LIMIT ?)", (k,))
            dropped = True
        _vacuum(path)
    return dropped
