"""`POST {base_url}/chat/completions` through the maintained `openai` client, with the harness's retry policy.

The `openai` package does the HTTP (connection pooling, timeouts, typed errors); its own retries are off
(`max_retries=0`) so that one policy, ours, decides: 429 (honouring Retry-After), 5xx, timeouts, dropped
connections and malformed bodies are retried with exponentially growing, jittered waits; any other 4xx
fails at once with the server's message. A server that answers the same HTTP 500 to every request (a broken
deployment, e.g. `transformers serve` without FFmpeg's libraries for video) is recognised after a few attempts
(`FailureStreak`) and sent nothing more: every remaining request fails at once with one clear error. The body goes through the client's `post` as the JSON it is and
comes back as a dict (`cast_to=object`): the typed `chat.completions.create()` walks every frame's base64
string to transform its parameters and builds pydantic models of the reply, which cost 3 % of throughput
at 16 requests in flight here (bench_adapters: 0.92 vs 0.95 of concurrency / latency); servers' extension
fields (`chat_template_kwargs`) travel as they are.

Besides the per-read `timeout`, each request has a total deadline (`request_deadline`, default
DEFAULT_DEADLINE_S): the body is read chunk by chunk and a server that trickles its answer a byte at a time,
or keeps the request in retries, is cut off there; the request fails with RequestTimeout (reason `timeout`),
not retried.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from harness.api import GenerationTimeout, ModelArgsError
from harness_models.openai_api.replies import UnusableReply, check_reply

log = logging.getLogger("harness.models.openai")

#: the default total time one request may take, retries and waits included (`request_deadline`)
DEFAULT_DEADLINE_S = 600.0
#: the largest response body read (a chat completion is kilobytes)
MAX_BODY_BYTES = 64 * 1024 * 1024
#: openai's own header asking `post` for the unread response, so the body is read here under the deadline
RAW_RESPONSE_HEADER = "X-Stainless-Raw-Response"


class ServerError(RuntimeError):
    """The endpoint kept failing (or refused the request); the message says how and what to check."""


class UnusableReplyError(ServerError):
    """Every attempt of a request got a reply without a usable message (replies.py): counted, never scored."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class RequestTimeout(ServerError, GenerationTimeout):
    """A request ran past its total deadline (`request_deadline`, retries and waits included): cut off, not
    retried; a per-sample error of kind `timeout`."""

    reason = "timeout"


class RepeatedServerError(ServerError):
    """The server answers every request with the same HTTP 500: this request was not sent (or not retried)."""

    reason = "repeated_server_error"


#: statuses that mean "the server's own code failed": the same one for every request is a broken server
_BROKEN_STATUSES = (500, 501)


class FailureStreak:
    """Tells a server that answers every request with the same error from one that fails now and then.

    Since the last success, identical HTTP 500/501 answers (status and body) to `requests` different requests
    and `attempts` attempts in all open it (a success in between starts over): from then on no request is sent
    or retried, each fails at once with one RepeatedServerError, and the run ends in seconds instead of
    retrying every request (seven attempts each by default) against a server that cannot answer."""

    def __init__(self, requests: int = 2, attempts: int = 4, sends_video: bool = False) -> None:
        self.requests, self.attempts, self.sends_video = requests, attempts, sends_video
        self._lock = threading.Lock()
        self._signature: Optional[tuple[int, str]] = None
        self._seen: set[int] = set()
        self._count = 0
        self.opened: Optional[RepeatedServerError] = None

    def success(self) -> None:
        with self._lock:
            self._signature, self._seen, self._count = None, set(), 0

    def failure(self, call: int, status: int, body: str, where: str) -> bool:
        """Count one failed attempt of call number `call`; True when this one opened the streak."""
        if status not in _BROKEN_STATUSES:
            return False
        with self._lock:
            if self.opened is not None:
                return False
            if (status, body) != self._signature:
                self._signature, self._seen, self._count = (status, body), set(), 0
            self._seen.add(call)
            self._count += 1
            if len(self._seen) < self.requests or self._count < self.attempts:
                return False
            message = _broken_message(where, status, body, self._count, len(self._seen), self.sends_video)
            self.opened = RepeatedServerError(message)
            return True

    def check(self) -> None:
        """RepeatedServerError once the streak is open."""
        if self.opened is not None:
            raise self.opened


def _broken_message(
    where: str, status: int, body: str, attempts: int, requests: int, sends_video: bool
) -> str:
    lowered = body.lower()
    video_fix = (
        "install FFmpeg's shared libraries and torchcodec where the server runs (docs/models.md, 'Served "
        "video'), or send frames as images (video_mode=images)"
    )
    if "torchcodec" in lowered or "ffmpeg" in lowered:
        fix = f"the server cannot decode video: {video_fix}"
    elif sends_video:
        fix = (
            "check the server's log; a server that cannot decode the video it is sent (transformers serve "
            f"without FFmpeg's libraries answers 'Internal Server Error') needs this: {video_fix}"
        )
    else:
        fix = "check the server's log"
    return (
        f"{where}: answered HTTP {status} ({body[:300].strip()}) to {attempts} attempts of {requests} different "
        f"requests in a row, so this run sends it nothing more; {fix}, then rerun the same command (answers "
        "already received are cached)"
    )


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
    """One failed attempt worth retrying; `reason` is set for a reply without a usable message."""

    def __init__(self, message: str, retry_after: Optional[float] = None, reason: Optional[str] = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.reason = reason


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
        sends_video: bool = False,
        deadline: float = DEFAULT_DEADLINE_S,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ModelArgsError(
                f"base_url={base_url!r} is not an http(s) URL such as http://127.0.0.1:8000/v1"
            )
        base = base_url.rstrip("/")
        if base.endswith("/chat/completions"):
            base = base[: -len("/chat/completions")]
        openai = _openai()
        self.base_url = base_url
        self.timeout = timeout
        self.deadline = deadline
        self.policy = policy
        self.sleep = sleep
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = openai.OpenAI(
            base_url=base, api_key=api_key or "EMPTY", timeout=timeout, max_retries=0
        )
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self.streak = FailureStreak(sends_video=sends_video)
        self._calls = itertools.count()

    def _timed_out(self) -> RequestTimeout:
        return RequestTimeout(
            f"{self.base_url}: no complete answer within request_deadline={self.deadline:g}s (retries included); "
            "the request was cut off. Raise request_deadline in --model_args if the server is just slow"
        )

    def _post(self, payload: dict[str, Any], due: float) -> Any:
        """POST one payload and read its body under the deadline `due` (time.monotonic): each read waits at
        most the time left, and the body is read chunk by chunk so a server trickling bytes is cut off."""
        left = due - time.monotonic()
        if left <= 0:
            raise self._timed_out()
        options = {"headers": {RAW_RESPONSE_HEADER: "stream"}, "timeout": min(self.timeout, left)}
        response = self._client.post("/chat/completions", body=payload, cast_to=object, options=options)
        body = bytearray()
        try:
            for chunk in response.iter_bytes():
                body += chunk
                if time.monotonic() > due:
                    raise self._timed_out()
                if len(body) > MAX_BODY_BYTES:
                    raise _Transient(f"response body over {MAX_BODY_BYTES} bytes")
        except (ServerError, _Transient):
            raise
        except Exception as err:  # the HTTP library's own read errors (httpx or httpx2, by version)
            if time.monotonic() > due:
                raise self._timed_out() from err
            kind = "no answer within" if "Timeout" in type(err).__name__ else "connection failed reading"
            raise _Transient(f"{kind} the body ({type(err).__name__}: {err})") from err
        finally:
            response.close()
        return json.loads(bytes(body))

    def _attempt(self, payload: dict[str, Any], call: int, due: float) -> dict[str, Any]:
        openai = _openai()
        self.streak.check()
        try:
            data: Any = self._post(payload, due)
        except openai.APITimeoutError as err:
            if time.monotonic() >= due:
                raise self._timed_out() from err
            raise _Transient(f"no answer within timeout={self.timeout}s") from err
        except openai.APIConnectionError as err:
            raise _Transient(f"connection failed ({type(err).__name__}: {err})") from err
        except openai.APIStatusError as err:
            status = err.status_code
            text = err.response.text[:500] if err.response is not None else str(err)
            if self.streak.failure(call, status, text, self.base_url):
                log.warning("%s", self.streak.opened)
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
        except (ValueError, RecursionError) as err:  # a 200 whose body is not JSON (or nested past any parser)
            raise _Transient(f"malformed response body ({type(err).__name__}: {err})") from err
        try:
            check_reply(data)
        except UnusableReply as err:
            raise _Transient(str(err), reason=err.reason) from err
        return data

    def complete(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """The server's JSON answer to one payload and how many retries it took; ServerError when it gives up."""
        last = _Transient("")
        call = next(self._calls)
        due = time.monotonic() + self.deadline
        for attempt in range(self.policy.max_retries + 1):
            try:
                data = self._attempt(payload, call, due)
            except _Transient as err:
                last = err
                self.streak.check()  # a server failing every request the same way is not waited for
                if attempt == self.policy.max_retries:
                    break
                with self._rng_lock:
                    delay = self.policy.delay(attempt, self._rng, err.retry_after)
                if time.monotonic() + delay >= due:
                    raise self._timed_out() from None
                self.sleep(delay)
                continue
            self.streak.success()
            return data, attempt
        message = f"{self.base_url}: gave up after {self.policy.max_retries + 1} attempts; last error: {last}. "
        if last.reason is not None:
            raise UnusableReplyError(message + "The server answered without a usable message", last.reason)
        raise ServerError(message + "Check that the server is up, or raise max_retries/timeout")
