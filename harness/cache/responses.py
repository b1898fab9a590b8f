"""The response cache: SQLite, JSON values, keyed by everything that changes an answer.

Several processes may share one file: SQLite's locking serialises writers and WAL lets readers go on.
Each answer is committed as it arrives (harness.engine.generation), so a killed run loses only the calls in flight.
A full disk or any write failure disables the cache for the rest of the run with one warning; the run
goes on. Each row carries the sha256 of its stored value (`checksum`); a row whose value does not match it
(a flipped byte, a hand edit, a row from before checksums), or that is not a JSON object, is a miss: dropped
with a warning, counted (`ResponseCache.rejected`, the run's `cache_rejected`) and recomputed, never served
as an answer. Values are stored as ASCII JSON, so text with invalid Unicode (a lone surrogate a server sent) is stored escaped and comes back
unchanged.

On a network filesystem (NFS, Lustre, CIFS, ...) SQLite's WAL mode is not safe (its shared-memory index
needs one host) and its locks may not hold across hosts. There each writer keeps its own shard,
`responses.<shard>.sqlite` in rollback-journal mode, written by that process only, and reads every
`responses*.sqlite` in the folder. The shard is `$HARNESS_CACHE_SHARD` when set (`0`/`off`: never shard),
else `<host>-rank<RANK>` when the cache dir is on a network filesystem, else none (one shared WAL file).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional

log = logging.getLogger("harness.cache")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    model TEXT,
    task TEXT,
    created REAL,
    checksum TEXT
)
"""

_CLAIMS = """
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT,
    pid INTEGER,
    at REAL
)
"""

AUTO = "auto"
#: a claim older than this is taken over even when its owner may still live on another host
CLAIM_LEASE_S = 900.0
#: filesystem types where SQLite's WAL mode and cross-host locking cannot be trusted
NETWORK_FS = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "ceph", "glusterfs",
     "fuse.sshfs", "fuse.glusterfs", "fuse.ceph", "9p", "afs", "panfs", "wekafs"}
)  # fmt: skip


def network_filesystem(path: Path, mounts: Optional[str] = None) -> Optional[str]:
    """The filesystem type holding `path` when it is a network one (from /proc/mounts), else None."""
    if mounts is None:
        try:
            mounts = Path("/proc/mounts").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    target = os.path.realpath(path)
    best, best_type = "", None
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, best_type = point, fields[2]
    return best_type if best_type in NETWORK_FS else None


def choose_shard(folder: Path) -> Optional[str]:
    """The shard this process writes (see the module docstring), or None for the shared WAL file."""
    env = os.environ.get("HARNESS_CACHE_SHARD", "").strip()
    if env.lower() in ("0", "off", "none", "false"):
        return None
    if env:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", env)
    fs = network_filesystem(folder)
    if fs is None:
        return None
    shard = f"{socket.gethostname()}-rank{os.environ.get('RANK', '0')}"
    log.info("response cache: %s is on %s (WAL unsafe); this process writes shard '%s'", folder, fs, shard)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", shard)


class ResponseCache:
    """get / put of JSON values by key in `<cache_dir>/responses.sqlite` (or this process's shard)."""

    def __init__(self, path: Path, timeout: float = 120.0, shard: Optional[str] = AUTO):
        self.path = Path(path)
        self.timeout = timeout
        self.shard = choose_shard(self.path.parent) if shard == AUTO else shard
        if self.shard:
            self.path = self.path.with_name(f"{self.path.stem}.{self.shard}{self.path.suffix}")
        self.disabled_reason: Optional[str] = None
        self._rejected: set[str] = set()  # keys of rows found corrupt (checksum or JSON): misses
        self._lock = threading.Lock()
        self._conn: Optional[sqlite3.Connection] = None
        self._others: dict[Path, Optional[sqlite3.Connection]] = {}  # other shards, read only
        self.host, self.pid = socket.gethostname(), os.getpid()
        self.owner = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:12]}"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = self._open(timeout)
        except (sqlite3.Error, OSError) as exc:
            self._disable(f"cannot open {self.path}: {exc}")

    def _open(self, timeout: float) -> sqlite3.Connection:
        """Connect and set up the file. Processes opening one new file at once can get SQLITE_BUSY from
        the switch to WAL without SQLite calling its busy handler, so a busy setup is retried until
        `timeout` (before, one of three processes sometimes ran without its cache)."""
        deadline = time.monotonic() + timeout
        delay = 0.01
        while True:
            conn = sqlite3.connect(
                str(self.path), timeout=timeout, check_same_thread=False, isolation_level=None
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
                conn.execute("PRAGMA journal_mode = DELETE" if self.shard else "PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute(_SCHEMA)
                conn.execute(_CLAIMS)
                _add_checksum_column(conn)
                return conn
            except sqlite3.OperationalError as exc:
                conn.close()
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy or time.monotonic() + delay > deadline:
                    raise
            except BaseException:
                conn.close()
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)

    def _disable(self, reason: str) -> None:
        if self.disabled_reason is None:
            self.disabled_reason = reason
            log.warning("response cache disabled, the run goes on without it: %s", reason)

    @property
    def rejected(self) -> int:
        """How many keys had a corrupt row (failed checksum or not a JSON object) in this process."""
        return len(self._rejected)

    @property
    def enabled(self) -> bool:
        return self._conn is not None and self.disabled_reason is None

    def get(self, key: str) -> Optional[dict[str, Any]]:
        return self.get_many([key]).get(key)

    def _readers(self) -> list[tuple[Path, sqlite3.Connection]]:
        """This process's file first, then (sharded) every other shard of the folder, opened read-only."""
        out = [(self.path, self._conn)]
        if not self.shard:
            return out
        stem, suffix = self.path.name.split(".", 1)[0], self.path.suffix
        for other in sorted(self.path.parent.glob(f"{stem}*{suffix}")):
            if other == self.path:
                continue
            if other not in self._others:
                try:
                    self._others[other] = sqlite3.connect(
                        f"file:{other}?mode=ro", uri=True, timeout=self.timeout, check_same_thread=False
                    )
                except sqlite3.Error as exc:
                    log.warning("response cache: cannot read shard %s (%s); skipping it", other, exc)
                    self._others[other] = None
            if self._others[other] is not None:
                out.append((other, self._others[other]))
        return out

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Values for the keys present (missing keys and unreadable rows are absent from the result)."""
        keys = list(dict.fromkeys(keys))
        if not self.enabled or not keys:
            return {}
        out: dict[str, dict[str, Any]] = {}
        with self._lock:
            for path, conn in self._readers():
                wanted = [k for k in keys if k not in out]
                try:
                    for i in range(0, len(wanted), 500):
                        chunk = wanted[i : i + 500]
                        marks = ",".join("?" * len(chunk))
                        rows = conn.execute(
                            f"SELECT key, value, checksum FROM responses WHERE key IN ({marks})", chunk
                        ).fetchall()
                        for k, v, digest in rows:
                            value = _loads(path, k, v, digest, warn=k not in self._rejected)
                            if value is not None:
                                out[k] = value
                            else:
                                self._rejected.add(k)
                except sqlite3.Error as exc:
                    if conn is self._conn:
                        self._disable(f"read failed on {self.path}: {exc}")
                        return {}
                    log.warning("response cache: read failed on shard %s (%s); skipping it", path, exc)
                    self._others[path] = None  # not asked again in this run
        return out

    def put_many(self, items: Iterable[tuple[str, dict[str, Any], str, str]]) -> None:
        """Store (key, value, model, task) rows in one transaction (values as ASCII JSON)."""
        texts = [(k, json.dumps(v, sort_keys=True), m, t) for k, v, m, t in items]
        rows = [(k, text, m, t, time.time(), checksum(text)) for k, text, m, t in texts]
        if not self.enabled or not rows:
            return
        try:
            with self._lock:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.executemany(
                    "INSERT OR REPLACE INTO responses (key, value, model, task, created, checksum) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
                self._conn.executemany("DELETE FROM claims WHERE key = ?", [(r[0],) for r in rows])
                self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._disable(f"write failed on {self.path}: {exc}")

    # -- claims: runs sharing a cache dir split the work instead of repeating it --------------------
    def claim(self, keys: Iterable[str]) -> set[str]:
        """Claim `keys` for this run; returns those another live run holds (to be skipped for now).

        A claim is alive while its owner's process runs (same host) or for CLAIM_LEASE_S (another host);
        an answer committed by put_many removes its claim, and so does `release`."""
        keys = list(dict.fromkeys(keys))
        if not self.enabled or not keys:
            return set()
        now = time.time()
        held: set[str] = set()
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                for _path, conn in self._readers():
                    for i in range(0, len(keys), 500):
                        chunk = keys[i : i + 500]
                        marks = ",".join("?" * len(chunk))
                        try:
                            rows = conn.execute(
                                f"SELECT key, owner, host, pid, at FROM claims WHERE key IN ({marks})", chunk
                            ).fetchall()
                        except sqlite3.Error:  # another shard without claims (or unreadable): none held there
                            if conn is self._conn:
                                raise
                            rows = []
                        held |= {
                            k
                            for k, owner, host, pid, at in rows
                            if owner != self.owner and _alive(host, pid, at, now)
                        }
                held -= self._answered(held)  # an answered key is a cache hit, whoever claimed it
                mine = [(k, self.owner, self.host, self.pid, now) for k in keys if k not in held]
                self._conn.executemany(
                    "INSERT OR REPLACE INTO claims (key, owner, host, pid, at) VALUES (?, ?, ?, ?, ?)", mine
                )
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                try:
                    self._conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                log.warning(
                    "response cache: could not claim work in %s (%s); going on without claims", self.path, exc
                )
                return set()
        return held

    def _answered(self, keys: set[str]) -> set[str]:
        """Those of `keys` with a stored answer in any shard (caller holds the lock)."""
        out: set[str] = set()
        wanted = list(keys)
        for _path, conn in self._readers() if wanted else []:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                marks = ",".join("?" * len(chunk))
                try:
                    rows = conn.execute(f"SELECT key FROM responses WHERE key IN ({marks})", chunk).fetchall()
                except sqlite3.Error:
                    if conn is self._conn:
                        raise
                    rows = []
                out |= {k for (k,) in rows}
        return out

    def release(self, keys: Optional[Iterable[str]] = None) -> None:
        """Drop this run's claims on `keys` (all of them when None), e.g. after a failed call."""
        if not self.enabled:
            return
        try:
            with self._lock:
                if keys is None:
                    self._conn.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
                else:
                    self._conn.executemany(
                        "DELETE FROM claims WHERE key = ? AND owner = ?", [(k, self.owner) for k in keys]
                    )
        except sqlite3.Error as exc:
            log.warning("response cache: could not release claims in %s (%s)", self.path, exc)

    def __len__(self) -> int:
        if not self.enabled:
            return 0
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        for conn in [self._conn, *self._others.values()]:
            if conn is not None:
                conn.close()
        self._conn = None
        self._others = {}


def _alive(host: Optional[str], pid: Optional[int], at: Optional[float], now: float) -> bool:
    """Whether a claim's owner may still be working on it."""
    if at is None or now - at > CLAIM_LEASE_S:
        return False
    if host == socket.gethostname() and pid:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except OSError:  # exists, owned by another user
            return True
    return True


def checksum(text: str) -> str:
    """The sha256 (hex) of a stored value's text, kept beside it in the row."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _add_checksum_column(conn: sqlite3.Connection) -> None:
    """Give a cache file made before checksums its `checksum` column (its old rows, without one, are misses)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
    if "checksum" not in columns:
        conn.execute("ALTER TABLE responses ADD COLUMN checksum TEXT")


def _loads(path: Path, key: str, text: Any, digest: Any, warn: bool = True) -> Optional[dict[str, Any]]:
    """A row's value, or None (with a warning) when it fails its checksum or is not a JSON object: the
    answer is recomputed."""
    problem = None
    if not isinstance(text, str) or digest != checksum(text):
        problem = "no checksum (stored before checksums)" if digest is None else "checksum mismatch"
    else:
        try:
            value = json.loads(text)
        except (ValueError, TypeError) as exc:
            problem = str(exc)
        else:
            if isinstance(value, dict):
                return value
            problem = "not an object"
    if warn:
        log.warning(
            "response cache: dropping corrupt row %s in %s (%s); it will be recomputed",
            key[:16],
            path,
            problem,
        )
    return None
