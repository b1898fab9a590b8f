"""A small HTTP client for `POST {base_url}/chat/completions`, with retries, backoff and timeouts.

Standard library only (http.client, one keep-alive connection per worker thread). Retries cover what is
transient: 429 (honouring Retry-After), 5xx, timeouts, dropped connections and malformed bodies; waits grow
exponentially with jitter. Other 4xx answers fail at once with the server's message.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional


class ServerError(RuntimeError):
    """The endpoint kept failing (or refused the request); the message says how and what to check."""


@dataclass
class RetryPolicy:
    """How often and how long to retry: delay_k = min(max_backoff, base * 2**k) * uniform(0.5, 1)."""

    max_retries: int = 6
    backoff_base: float = 1.0
    max_backoff: float = 60.0

    def delay(self, attempt: int, rng: random.Random, retry_after: Optional[float] = None) -> float:
        """Seconds to wait before retry number `attempt` (0-based)."""
        if retry_after is not None:
            return min(self.max_backoff, max(0.0, retry_after))
        ceiling = min(self.max_backoff, self.backoff_base * (2**attempt))
        return ceiling * (0.5 + 0.5 * rng.random())


class _Transient(Exception):
    def __init__(self, reason: str, retry_after: Optional[float] = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class ChatClient:
    """Posts chat-completion payloads; thread-safe (each thread keeps its own connection)."""

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str],
        timeout: float,
        policy: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        seed: int = 0,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url={base_url!r} is not an http(s) URL such as http://127.0.0.1:8000/v1")
        path = parts.path.rstrip("/")
        self.path = path if path.endswith("/chat/completions") else path + "/chat/completions"
        self.scheme, self.host, self.port = parts.scheme, parts.hostname, parts.port
        self.base_url = base_url
        self.timeout = timeout
        self.policy = policy
        self.sleep = sleep
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._local = threading.local()
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            conn = cls(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
        self._local.conn = None

    def _attempt(self, body: bytes) -> dict[str, Any]:
        conn = self._connection()
        try:
            conn.request("POST", self.path, body=body, headers=self._headers)
            response = conn.getresponse()
            raw = response.read()
        except TimeoutError as err:
            self._drop_connection()
            raise _Transient(f"no answer within timeout={self.timeout}s") from err
        except (ConnectionError, http.client.HTTPException, OSError) as err:
            self._drop_connection()
            raise _Transient(f"connection failed ({type(err).__name__}: {err})") from err
        status = response.status
        if status == 429 or status >= 500:
            retry_after = response.getheader("Retry-After")
            try:
                wait = float(retry_after) if retry_after is not None else None
            except ValueError:
                wait = None
            raise _Transient(f"HTTP {status}: {raw[:200].decode('utf-8', 'replace')}", wait)
        if status >= 400:
            hint = (
                " (check the API key in the environment variable named by api_key_env)"
                if status in (401, 403)
                else ""
            )
            raise ServerError(f"{self.base_url}: HTTP {status}{hint}: {raw[:500].decode('utf-8', 'replace')}")
        try:
            data = json.loads(raw)
            data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise _Transient(f"malformed response body: {raw[:200].decode('utf-8', 'replace')!r}") from err
        return data

    def complete(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """The server's JSON answer to one payload and how many retries it took; ServerError when it gives up."""
        body = json.dumps(payload).encode("utf-8")
        last = ""
        for attempt in range(self.policy.max_retries + 1):
            try:
                return self._attempt(body), attempt
            except _Transient as err:
                last = str(err)
                if attempt == self.policy.max_retries:
                    break
                with self._rng_lock:
                    delay = self.policy.delay(attempt, self._rng, err.retry_after)
                self.sleep(delay)
        raise ServerError(
            f"{self.base_url}: gave up after {self.policy.max_retries + 1} attempts; last error: {last}. "
            "Check that the server is up, or raise max_retries/timeout"
        )
