"""The on-disk index of videos' content hashes: file version -> digest, shared by processes.

A folder of append-only logs, one per writing process (`log-<pid>-<random>.jsonl`), each line
`[version, digest, crc32]` in JSON. A reader loads every log once and later reads only what was appended
(`refresh`), so a rerun costs one read of a small file, not one file per video. A torn or damaged line
fails its CRC and is skipped (that video is simply hashed again). With more than `COMPACT_AT` logs the
loader folds them into one (`merged-*.jsonl`, written atomically) and deletes the logs it read: an entry a
live process appends to a log in the same instant is lost, which costs a rehash, never a wrong hash.
No locks and no SQLite, so it is safe on network filesystems (each process writes only its own file).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
import zlib
from pathlib import Path
from typing import IO, Optional

from harness.files import write_atomic

log = logging.getLogger("harness.data.media")

COMPACT_AT = 32
_PATTERNS = ("log-", "merged-")


def _crc(version: str, digest: str) -> int:
    return zlib.crc32(f"{version}\0{digest}".encode("utf-8", "surrogatepass"))


def _line(version: str, digest: str) -> str:
    return json.dumps([version, digest, _crc(version, digest)], ensure_ascii=True) + "\n"


def _parse(line: bytes) -> Optional[tuple[str, str]]:
    try:
        version, digest, crc = json.loads(line)
    except (ValueError, TypeError):
        return None
    if not (isinstance(version, str) and isinstance(digest, str)) or crc != _crc(version, digest):
        return None
    return version, digest


class HashIndex:
    """File version (a tuple) -> content digest, kept in `folder` (see the module docstring)."""

    def __init__(self, folder: Path, hash_version: int) -> None:
        self.folder = folder
        self.hash_version = hash_version
        self._entries: dict[str, str] = {}
        self._read: dict[str, int] = {}  # log name -> bytes read so far
        self._loaded = False
        self._writer: Optional[IO[str]] = None
        self._writer_pid = 0
        self._lock = threading.Lock()

    def _name(self, key: tuple) -> str:
        return repr((self.hash_version, *key))

    def get(self, key: tuple, refresh: bool = False) -> Optional[str]:
        """The stored digest of a file version; `refresh`: on a miss, read new lines first."""
        if not self._loaded:
            self.refresh()
        name = self._name(key)
        hit = self._entries.get(name)
        if hit is None and refresh:
            self.refresh()
            hit = self._entries.get(name)
        return hit

    def add(self, key: tuple, digest: str) -> None:
        """Append one entry to this process's log (a full or read-only disk leaves it in memory only)."""
        name = self._name(key)
        with self._lock:
            self._entries[name] = digest
            try:
                writer = self._own_log()
                line = _line(name, digest)
                writer.write(line)
                writer.flush()
                self._read[os.path.basename(writer.name)] += len(line)  # our own lines: never re-read
            except OSError as exc:
                log.debug("content hash of %s not stored in %s: %s", key[0], self.folder, exc)

    def _own_log(self) -> IO[str]:
        if self._writer is None or self._writer_pid != os.getpid():  # a forked child writes its own log
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f"log-{os.getpid()}-{uuid.uuid4().hex[:12]}.jsonl"
            self._writer = open(path, "a", encoding="ascii", newline="\n")
            self._writer_pid = os.getpid()
            self._read[path.name] = 0
        return self._writer

    def refresh(self) -> None:
        """Read every log's lines not read yet (all of them the first time)."""
        with self._lock:
            self._loaded = True
            try:
                entries = [e for e in os.scandir(self.folder) if e.name.startswith(_PATTERNS) and e.is_file()]
            except OSError:  # no folder yet, or unreadable: nothing stored
                return
            for entry in entries:
                self._read_log(entry)
            if len(entries) > COMPACT_AT:
                self._compact(entries)

    def _read_log(self, entry: os.DirEntry) -> None:
        done = self._read.get(entry.name, 0)
        try:
            if entry.stat().st_size <= done:
                return
            with open(entry.path, "rb") as f:
                f.seek(done)
                data = f.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        for raw in data[:end].splitlines():
            parsed = _parse(raw)
            if parsed is not None:
                self._entries[parsed[0]] = parsed[1]
        self._read[entry.name] = done + end

    def _compact(self, entries: list[os.DirEntry]) -> None:
        own = os.path.basename(self._writer.name) if self._writer is not None else None
        merged = self.folder / f"merged-{uuid.uuid4().hex[:12]}.jsonl"
        try:
            write_atomic(merged, "".join(_line(name, digest) for name, digest in self._entries.items()))
        except OSError as exc:
            log.debug("hash index %s not compacted: %s", self.folder, exc)
            return
        self._read[merged.name] = merged.stat().st_size
        for entry in entries:
            if entry.name == own:
                continue
            try:
                os.unlink(entry.path)
            except OSError:  # e.g. still open on Windows: folded again next time
                continue
            self._read.pop(entry.name, None)

    def forget(self) -> None:
        """Drop the loaded entries (the next lookup reads the logs again)."""
        with self._lock:
            self._entries.clear()
            self._read = {}
            self._loaded = False
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    def close(self) -> None:
        """Close this process's log."""
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
