"""`POST {base_url}/chat/completions` through the maintained `openai` client, with the harness's retry policy.

The `openai` package does the HTTP (connection pooling, timeouts, typed errors); its own retries are off
(`max_retries=0`) so that one policy, ours, decides: 429 (honouring Retry-After), 5xx, timeouts, dropped
connections and malformed bodies are retried with exponentially growing, jittered waits; any other 4xx
fails at once with the server's message. The body goes through the client's `post` as the JSON it is and
comes back as a dict (`cast_to=object`): the typed `chat.completions.create()` walks every frame's base64
string to transform its parameters and builds pydantic models of the reply, which cost 3 % of throughput
at 16 requests in flight here (bench_adapters: 0.92 vs 0.95 of concurrency / latency); servers' extension
fields (`chat_template_kwargs`) travel as they are.
"""

from __future__ import annotations

import random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from harness.api import ModelArgsError


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


def _openai():
    """The `openai` package (the `openai` extra). Its ModuleNotFoundError is left to propagate: the harness
    turns it into the install command (exit 3) when the model is built."""
    import openai  # noqa: PLC0415 - the served-model extra

    return openai


def _retry_after(response: Any) -> Optional[float]:
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class ChatClient:
    """Posts chat-completion payloads; thread-safe (the `openai` client pools its connections)."""

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
            raise ModelArgsError(f"base_url={base_url!r} is not an http(s) URL such as http://127.0.0.1:8000/v1")
        base = base_url.rstrip("/")
        if base.endswith("/chat/completions"):
            base = base[: -len("/chat/completions")]
        openai = _openai()
        self.base_url = base_url
        self.timeout = timeout
        self.policy = policy
        self.sleep = sleep
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = openai.OpenAI(
            base_url=base, api_key=api_key or "EMPTY", timeout=timeout, max_retries=0
        )
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()

    def _attempt(self, payload: dict[str, Any]) -> dict[str, Any]:
        openai = _openai()
        try:
            data: Any = self._client.post("/chat/completions", body=payload, cast_to=object)
        except openai.APITimeoutError as err:
            raise _Transient(f"no answer within timeout={self.timeout}s") from err
        except openai.APIConnectionError as err:
            raise _Transient(f"connection failed ({type(err).__name__}: {err})") from err
        except openai.APIStatusError as err:
            status = err.status_code
            text = err.response.text[:500] if err.response is not None else str(err)
            if status == 429 or status >= 500:
                raise _Transient(f"HTTP {status}: {text[:200]}", _retry_after(err.response)) from err
            hint = (
                " (check the API key in the environment variable named by api_key_env)"
                if status in (401, 403)
                else ""
            )
            raise ServerError(f"{self.base_url}: HTTP {status}{hint}: {text}") from err
        except openai.APIResponseValidationError as err:
            raise _Transient(f"malformed response body ({err})") from err
        except ValueError as err:  # a 200 whose body is not JSON
            raise _Transient(f"malformed response body ({type(err).__name__}: {err})") from err
        try:
            data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as err:
            raise _Transient(f"malformed response body: {str(data)[:200]!r}") from err
        return data

    def complete(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """The server's JSON answer to one payload and how many retries it took; ServerError when it gives up."""
        last = ""
        for attempt in range(self.policy.max_retries + 1):
            try:
                return self._attempt(payload), attempt
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
