"""The `openai` adapter: any OpenAI-compatible chat endpoint (vLLM, SGLang, hosted APIs).

Keeps `concurrency` requests in flight (`max_in_flight`: the evaluator runs that many calls at once, and one
call of many requests uses that many threads), retries transient failures with exponential backoff and
jitter, counts tokens and cost per request, and stops cleanly at a `max_cost` budget: no new request is
sent once the spend reaches it, the ones in flight finish, and `BudgetExceeded` carries the answers that
did come back so the evaluator can keep them and count the rest as not run. `generate_iter` yields each
answer as it returns, so the evaluator caches it at once.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, ClassVar, Optional

from harness.api import (
    Capabilities,
    Model,
    ModelArgsError,
    PartialGeneration,
    Request,
    Response,
    Result,
    VideoPart,
)
from harness_models.args import as_bool, as_float, as_int, as_str
from harness_models.openai_api.client import DEFAULT_DEADLINE_S, ChatClient, RetryPolicy, ServerError
from harness_models.openai_api.encoding import FORMATS, to_messages
from harness_models.openai_api.video import VideoEncoder

_ARGS = (
    "model",
    "base_url",
    "api_key_env",
    "concurrency",
    "timeout",
    "request_deadline",
    "max_retries",
    "backoff_base",
    "max_backoff",
    "price_prompt_per_1k",
    "price_completion_per_1k",
    "max_cost",
    "max_frames",
    "image_format",
    "jpeg_quality",
    "image_detail",
    "max_new_tokens",
    "multi_video",
    "tag",
    "video_mode",
    "video_codec",
    "video_crf",
    "video_transport",
    "video_dir",
    "send_num_frames",
)
log = logging.getLogger("harness.models.openai")

# Generation kwargs sent as they are (the OpenAI chat-completions names).
_PASS_THROUGH = ("top_p", "seed", "frequency_penalty", "presence_penalty", "response_format", "logprobs")


class BudgetExceeded(PartialGeneration):
    """The max_cost budget was reached; `responses[i]` is the answer to request i, or None if never sent."""

    def __init__(self, message: str, responses: list[Optional[Response]], spent: float) -> None:
        super().__init__(message, responses)
        self.responses = responses
        self.spent = spent


class RequestsFailed(PartialGeneration):
    """Some requests failed for good; `responses` holds the ones that succeeded, `errors` maps index to reason."""

    def __init__(self, message: str, responses: list[Optional[Response]], errors: dict[int, str]) -> None:
        super().__init__(
            message, [r if r is not None else ServerError(errors[i]) for i, r in enumerate(responses)]
        )
        self.responses = responses
        self.errors = errors


class OpenAIModel(Model):
    """`--model openai --model_args model=NAME,base_url=http://host:8000/v1,api_key_env=OPENAI_API_KEY,...`."""

    name: ClassVar[str] = "openai"
    lmms_eval_model: ClassVar[Optional[str]] = "openai"
    version: ClassVar[str] = "1"
    accepted_args: ClassVar[tuple[str, ...]] = _ARGS

    def __init__(self, **model_args: Any) -> None:
        super().__init__(**model_args)
        n = self.name
        self.model = as_str(model_args.get("model"))
        if not self.model:
            raise ModelArgsError(f"model '{n}' needs model=NAME (the served model name) in --model_args")
        self.base_url = as_str(model_args.get("base_url")) or "https://api.openai.com/v1"
        key_env = as_str(model_args.get("api_key_env"))
        api_key = None
        if key_env:
            api_key = os.environ.get(key_env)
            if not api_key:
                raise ModelArgsError(
                    f"model '{n}': api_key_env={key_env} but that environment variable is not set"
                )
        else:
            api_key = os.environ.get("OPENAI_API_KEY")
        self.concurrency = as_int(model_args.get("concurrency", 8), "concurrency", n, 1)
        self.max_in_flight = self.concurrency
        timeout = as_float(model_args.get("timeout", 120.0), "timeout", n, 0.001)
        policy = RetryPolicy(
            max_retries=as_int(model_args.get("max_retries", 6), "max_retries", n, 0),
            backoff_base=as_float(model_args.get("backoff_base", 1.0), "backoff_base", n, 0.0),
            max_backoff=as_float(model_args.get("max_backoff", 60.0), "max_backoff", n, 0.0),
        )
        self.price_prompt = as_float(
            model_args.get("price_prompt_per_1k", 0.0), "price_prompt_per_1k", n, 0.0
        )
        self.price_completion = as_float(
            model_args.get("price_completion_per_1k", 0.0), "price_completion_per_1k", n, 0.0
        )
        self.max_cost = as_float(model_args.get("max_cost"), "max_cost", n, 0.0)
        self.max_frames = as_int(model_args.get("max_frames"), "max_frames", n, 1)
        self.image_format = (as_str(model_args.get("image_format")) or "jpeg").lower()
        if self.image_format not in FORMATS:
            raise ModelArgsError(
                f"model '{n}': image_format={self.image_format!r} is not one of {', '.join(FORMATS)}"
            )
        self.jpeg_quality = as_int(model_args.get("jpeg_quality", 90), "jpeg_quality", n, 1)
        self.image_detail = as_str(model_args.get("image_detail"))
        self.max_new_tokens = as_int(model_args.get("max_new_tokens", 256), "max_new_tokens", n, 1)
        self.tag = as_str(model_args.get("tag"))
        self.video = VideoEncoder(
            mode=(as_str(model_args.get("video_mode")) or "images").lower(),
            codec=(as_str(model_args.get("video_codec")) or "lossless").lower(),
            crf=as_int(model_args.get("video_crf", 18), "video_crf", n, 0),
            transport=(as_str(model_args.get("video_transport")) or "data").lower(),
            jpeg_quality=self.jpeg_quality,
            video_dir=as_str(model_args.get("video_dir")),
        )
        self.send_num_frames = as_bool(model_args.get("send_num_frames", False), "send_num_frames", n)
        multi_video = as_bool(model_args.get("multi_video", True), "multi_video", n)
        self.capabilities = Capabilities(
            video=True, multi_video=multi_video, images=True, max_frames=self.max_frames
        )
        deadline = as_float(
            model_args.get("request_deadline", DEFAULT_DEADLINE_S), "request_deadline", n, 0.001
        )
        self.client = ChatClient(
            self.base_url,
            api_key,
            timeout,
            policy,
            sends_video=self.video.mode != "images",
            deadline=deadline,
        )
        self.spent = 0.0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._lock = threading.Lock()
        self._pool: Optional[ThreadPoolExecutor] = None
        self._warned_n = False

    def identity(self) -> dict[str, Any]:
        """The served model and how frames are encoded; not the URL, key, concurrency, retries or prices."""
        args = {
            "model": self.model,
            "max_frames": self.max_frames,
            "image_format": self.image_format,
            "jpeg_quality": self.jpeg_quality if self.image_format == "jpeg" else None,
            "image_detail": self.image_detail,
            "max_new_tokens": self.max_new_tokens,
            "tag": self.tag,
        }
        if self.video.mode != "images":
            args.update(self.video.describe(), send_num_frames=self.send_num_frames)
        return {"name": self.name, "version": self.version, "args": args}

    # ----------------------------------------------------------------- payloads
    def payload(self, request: Request) -> dict[str, Any]:
        """The chat-completions body for one request (greedy unless the task asks for sampling)."""
        gen = dict(request.gen_kwargs or {})
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_messages(
                request, self.image_format, self.jpeg_quality, self.image_detail, self.video
            ),
        }
        if self.send_num_frames and self.video.mode != "images":
            # transformers serve samples 32 frames of a video unless told: keep exactly the clip's frames
            counts = [len(p.frames) for m in request.messages for p in m.content if isinstance(p, VideoPart)]
            if counts:
                body["chat_template_kwargs"] = {"num_frames": max(counts)}
        max_tokens = gen.get("max_new_tokens", gen.get("max_gen_toks", gen.get("max_tokens")))
        body["max_tokens"] = int(max_tokens) if max_tokens is not None else self.max_new_tokens
        temperature = gen.get("temperature")
        if gen.get("do_sample") is False or temperature is None:
            temperature = 0.0 if not gen.get("do_sample") else 1.0
        body["temperature"] = float(temperature)
        samples = int(gen.get("n") or gen.get("num_return_sequences") or 1)
        if samples > 1:
            body["n"] = samples
        stop = gen.get("until", gen.get("stop"))
        if stop:
            body["stop"] = [stop] if isinstance(stop, str) else list(stop)
        for key in _PASS_THROUGH:
            if gen.get(key) is not None:
                body[key] = gen[key]
        return body

    def _response(self, data: dict[str, Any], retries: int) -> Response:
        texts = [(choice.get("message") or {}).get("content") or "" for choice in data["choices"]]
        usage = data.get("usage") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        cost = prompt / 1000.0 * self.price_prompt + completion / 1000.0 * self.price_completion
        with self._lock:
            self.spent += cost
            self.prompt_tokens += prompt
            self.completion_tokens += completion
        structured: Optional[dict[str, Any]] = None
        if len(texts) > 1:
            structured = {"samples": texts}
        else:
            structured = _json_object(texts[0])
        return Response(
            text=texts[0].strip(),
            structured=structured,
            usage={
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "cost": cost,
                "retries": retries,
                **({"n_fallback": True} if usage.get("n_fallback") else {}),
            },
        )

    def _call(self, request: Request) -> Response:
        body = self.payload(request)
        data, retries = self.client.complete(body)
        wanted = int(body.get("n", 1))
        if len(data.get("choices") or []) < wanted:
            data, retries = self._top_up(body, data, retries, wanted)
        return self._response(data, retries)

    def _top_up(self, body: dict, data: dict, retries: int, wanted: int) -> tuple[dict, int]:
        """A server that ignored `n` (answered fewer choices, HTTP 200): ask for the rest one at a time,
        so pass@k never runs on fewer samples than it says. Recorded as `usage.n_fallback`."""
        if not self._warned_n:
            self._warned_n = True
            log.warning(
                "model '%s': %s returned %d choice(s) for n=%d; asking for the remaining samples one "
                "request at a time", self.name, self.base_url, len(data.get("choices") or []), wanted,
            )
        single = {k: v for k, v in body.items() if k != "n"}
        choices = list(data.get("choices") or [])
        usage = dict(data.get("usage") or {})
        while len(choices) < wanted:
            more, extra = self.client.complete(single)
            retries += extra
            if not more.get("choices"):
                raise ServerError(f"{self.base_url}: returned no choices for a request (doc n={wanted})")
            choices.extend(more["choices"][: wanted - len(choices)])
            for key in ("prompt_tokens", "completion_tokens"):
                usage[key] = int(usage.get(key) or 0) + int((more.get("usage") or {}).get(key) or 0)
        usage["n_fallback"] = True
        return {**data, "choices": choices, "usage": usage}, retries

    def close(self) -> None:
        """Stop the request threads (after the ones in flight) and remove clips written for
        `video_transport=path|file_url` into a temp folder."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self.video.close()

    def _over_budget(self) -> bool:
        with self._lock:
            return self.max_cost is not None and self.spent >= self.max_cost

    # ----------------------------------------------------------------- generation
    def _budget_message(self, answered: int, total: int) -> str:
        return (
            f"model '{self.name}': spent ${self.spent:.4f} of max_cost=${self.max_cost:.4f}; "
            f"{answered} of {total} requests in this batch answered, the rest not sent. "
            "Raise max_cost to continue (finished answers are kept)"
        )

    def generate_iter(self, requests: list[Request]) -> Iterator[tuple[int, Result]]:
        """(index, Response or error) as answers return, at most `concurrency` in flight; once the budget is
        spent, the requests not sent yet come back as BudgetExceeded."""
        if len(requests) == 1 and not self._over_budget():
            # one request (the evaluator's calls at --batch_size 1, `concurrency` of them at once): sent
            # from the calling thread, one hand-off less per answer
            yield from self._collect_one(requests[0])
            return
        in_flight: dict[Future, int] = {}
        stopped_at: Optional[int] = None
        pool = self._executor()
        for index, request in enumerate(requests):
            while len(in_flight) >= self.concurrency:
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                yield from self._collect(done, in_flight)
            if self._over_budget():
                stopped_at = index
                break
            in_flight[pool.submit(self._call, request)] = index
        while in_flight:
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            yield from self._collect(done, in_flight)
        if stopped_at is not None:
            exc = BudgetExceeded(self._budget_message(stopped_at, len(requests)), [], self.spent)
            for index in range(stopped_at, len(requests)):
                yield index, exc

    def _executor(self) -> ThreadPoolExecutor:
        """One pool of `concurrency` threads for the model's life: concurrent calls share it (so at most
        `concurrency` requests are in flight in all) and each thread keeps its keep-alive connection."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="openai")
            return self._pool

    def _collect_one(self, request: Request) -> Iterator[tuple[int, Result]]:
        try:
            result: Result = self._call(request)
        except (ServerError, ValueError, TypeError) as err:
            result = err
        yield 0, result

    @staticmethod
    def _collect(done, in_flight: dict[Future, int]) -> Iterator[tuple[int, Result]]:
        for future in done:
            index = in_flight.pop(future)
            try:
                yield index, future.result()
            except (ServerError, ValueError, TypeError) as err:
                yield index, err

    def generate(self, requests: list[Request]) -> list[Response]:
        """Answer every request with at most `concurrency` in flight; stop sending at the budget."""
        results: list[Optional[Response]] = [None] * len(requests)
        errors: dict[int, str] = {}
        stopped = False
        for index, result in self.generate_iter(requests):
            if isinstance(result, BudgetExceeded):
                stopped = True
            elif isinstance(result, BaseException):
                errors[index] = str(result)
            else:
                results[index] = result
        if stopped:
            answered = sum(r is not None for r in results)
            raise BudgetExceeded(self._budget_message(answered, len(requests)), results, self.spent)
        if errors:
            first = min(errors)
            raise RequestsFailed(
                f"model '{self.name}': {len(errors)} of {len(requests)} requests failed; first "
                f"(doc_id={requests[first].doc_id!r}): {errors[first]}",
                results,
                errors,
            )
        return [r for r in results if r is not None]


def _json_object(text: str) -> Optional[dict[str, Any]]:
    """The reply as a JSON object when the server returned one (structured outputs), else None."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
