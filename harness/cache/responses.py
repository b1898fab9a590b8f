"""The response cache: SQLite in WAL mode, JSON values, keyed by everything that changes an answer.

Several processes may share one file: SQLite's locking serialises writers and WAL lets readers go on.
Entries are committed after every batch, so a killed run loses at most the batch in flight. A full disk
or any write failure disables the cache for the rest of the run with one warning; the run goes on.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
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
    created REAL
)
"""


class ResponseCache:
    """get / put of JSON values by key in `<cache_dir>/responses.sqlite`."""

    def __init__(self, path: Path, timeout: float = 120.0):
        self.path = Path(path)
        self.disabled_reason: Optional[str] = None
        self._lock = threading.Lock()
        self._conn: Optional[sqlite3.Connection] = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                str(self.path), timeout=timeout, check_same_thread=False, isolation_level=None
            )
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(_SCHEMA)
            self._conn = conn
        except (sqlite3.Error, OSError) as exc:
            self._disable(f"cannot open {self.path}: {exc}")

    def _disable(self, reason: str) -> None:
        if self.disabled_reason is None:
            self.disabled_reason = reason
            log.warning("response cache disabled, the run goes on without it: %s", reason)

    @property
    def enabled(self) -> bool:
        return self._conn is not None and self.disabled_reason is None

    def get(self, key: str) -> Optional[dict[str, Any]]:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Values for the keys present (missing keys are absent from the result)."""
        keys = list(keys)
        if not self.enabled or not keys:
            return {}
        out: dict[str, dict[str, Any]] = {}
        try:
            with self._lock:
                for i in range(0, len(keys), 500):
                    chunk = keys[i : i + 500]
                    marks = ",".join("?" * len(chunk))
                    for k, v in self._conn.execute(
                        f"SELECT key, value FROM responses WHERE key IN ({marks})", chunk
                    ):
                        out[k] = json.loads(v)
        except sqlite3.Error as exc:
            self._disable(f"read failed on {self.path}: {exc}")
            return {}
        return out

    def put_many(self, items: Iterable[tuple[str, dict[str, Any], str, str]]) -> None:
        """Store (key, value, model, task) rows in one transaction."""
        rows = [(k, json.dumps(v, sort_keys=True), m, t, time.time()) for k, v, m, t in items]
        if not self.enabled or not rows:
            return
        try:
            with self._lock:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.executemany(
                    "INSERT OR REPLACE INTO responses (key, value, model, task, created) VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
                self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._disable(f"write failed on {self.path}: {exc}")

    def __len__(self) -> int:
        if not self.enabled:
            return 0
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
