"""The `openai` adapter against a scripted OpenAI-compatible server on 127.0.0.1 (no network).

The server reads directives from the prompt text, e.g. "[429x2]" (two 429s, then an answer), "[500x1]",
"[slowx1]" (the first reply comes later than the client's timeout), "[badx1]" (a malformed body),
"[400]" (a permanent refusal), "[json]" (a JSON object as the answer), and counts requests in flight. A
`broken` server answers every request with the same HTTP 500 (as `transformers serve` does for video when
torchcodec cannot load FFmpeg's libraries).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time

import numpy as np
import pytest
from servers.chat import ChatServer

from harness.api import ModelArgsError
from harness.contract.messages import Message, Request, TextPart, VideoPart
from harness.data.media import VideoRef
from harness_models.openai_api.adapter import BudgetExceeded, OpenAIModel, RequestsFailed
from harness_models.openai_api.client import RepeatedServerError, RetryPolicy


class ScriptedServer(ChatServer):
    """A chat-completions server whose misbehaviour is scripted by directives in the prompt."""

    def __init__(self, delay: float = 0.0, slow: float = 1.0, broken: bytes | None = None) -> None:
        self.delay, self.slow, self.broken = delay, slow, broken
        self.attempts: dict[str, int] = {}
        self.bodies: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        super().__init__()

    def handle(self, handler, body):
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.bodies.append(body)
        try:
            self.reply(handler, body)
        finally:
            with self.lock:
                self.in_flight -= 1

    def reply(self, handler, body):
        if self.broken is not None:
            return self.send(handler, 500, self.broken)
        text = "".join(
            part.get("text", "")
            for m in body["messages"]
            for part in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])
        )
        with self.lock:
            attempt = self.attempts.get(text, 0)
            self.attempts[text] = attempt + 1
        for kind, count in re.findall(r"\[(429|500|slow|bad)x(\d+)\]", text):
            if attempt < int(count):
                if kind == "slow":
                    time.sleep(self.slow)
                elif kind == "bad":
                    return self.send(handler, 200, b'{"choices": [ truncated')
                else:
                    retry_after = {"Retry-After": "0.002"} if kind == "429" else {}
                    return self.send(handler, int(kind), b'{"error": "scripted"}', retry_after)
        if "[400]" in text:
            return self.send(handler, 400, b'{"error": {"message": "image too large"}}')
        if self.delay:
            time.sleep(self.delay)
        n = body.get("n", 1)
        content = (
            '{"answer": "B", "boxes": [[1, 2, 3, 4]]}' if "[json]" in text else f"answer to: {text[:40]}"
        )
        reply = {
            "choices": [{"index": i, "message": {"role": "assistant", "content": content}} for i in range(n)],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10 * n, "total_tokens": 100 + 10 * n},
        }
        self.send(handler, 200, json.dumps(reply).encode())


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


def make(server, **args):
    defaults = {"model": "tiny-vlm", "base_url": server.url, "backoff_base": 0.01, "max_backoff": 0.05}
    return OpenAIModel(**{**defaults, **args})


def request(text, clips=0, gen=None, doc="d"):
    parts = []
    for c in range(clips):
        frames = np.full((3, 16, 16, 3), 40 * (c + 1), dtype=np.uint8)
        parts.append(VideoPart(ref=VideoRef(path=f"c{c}.mp4"), frames=frames, label=f"Clip {c + 1}"))
    return Request(messages=[Message("user", [*parts, TextPart(text)])], gen_kwargs=gen or {}, doc_id=doc)


def test_frames_go_as_labelled_image_parts_in_clip_order(server):
    model = make(server, image_format="png")
    [response] = model.generate([request("Which clip is the middle?", clips=2, gen={"max_new_tokens": 7})])
    content = server.bodies[0]["messages"][0]["content"]
    kinds = [p["type"] if p["type"] == "image_url" else p["text"] for p in content]
    assert kinds == [
        "Clip 1:",
        *["image_url"] * 3,
        "Clip 2:",
        *["image_url"] * 3,
        "Which clip is the middle?",
    ]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert server.bodies[0]["max_tokens"] == 7 and server.bodies[0]["temperature"] == 0.0
    assert response.text.startswith("answer to:")


def test_retries_429_500_timeouts_and_malformed_bodies(server):
    model = make(server, timeout=0.3, max_retries=3)
    server.slow = 1.0
    texts = ["a [429x2]", "b [500x3]", "c [slowx1]", "d [badx2]", "e"]
    responses = model.generate([request(t) for t in texts])
    assert [r.usage["retries"] for r in responses] == [2, 3, 1, 2, 0]
    assert all(r.text.startswith("answer to:") for r in responses)


def test_backoff_grows_exponentially_with_jitter(server):
    delays = []
    model = make(server, backoff_base=0.001, max_backoff=1.0, max_retries=5)
    model.client.sleep = delays.append
    model.generate([request("x [500x4]")])
    assert len(delays) == 4
    for k, d in enumerate(delays):
        assert 0.5 * 0.001 * 2**k <= d <= 0.001 * 2**k
    assert RetryPolicy(backoff_base=10, max_backoff=15).delay(5, random.Random(0)) <= 15


def test_429_waits_as_long_as_retry_after_says(server):
    delays = []
    model = make(server)
    model.client.sleep = delays.append
    model.generate([request("x [429x2]")])
    assert delays == [0.002, 0.002]


def test_gives_up_after_max_retries_and_refuses_4xx_at_once(server):
    model = make(server, max_retries=1)
    with pytest.raises(RequestsFailed) as info:
        model.generate([request("ok"), request("no [500x9]", doc="bad"), request("big [400]", doc="big")])
    err = info.value
    assert err.responses[0] is not None and err.responses[1] is None and err.responses[2] is None
    assert "gave up after 2 attempts" in err.errors[1] and "HTTP 500" in err.errors[1]
    assert "HTTP 400" in err.errors[2] and "image too large" in err.errors[2]
    assert server.attempts["big [400]"] == 1


def test_token_and_cost_accounting(server):
    model = make(server, price_prompt_per_1k=0.5, price_completion_per_1k=1.5)
    responses = model.generate([request(f"q{i}") for i in range(3)])
    for r in responses:
        assert r.usage["prompt_tokens"] == 100 and r.usage["completion_tokens"] == 10
        assert r.usage["cost"] == pytest.approx(0.1 * 0.5 + 0.01 * 1.5)
    assert model.spent == pytest.approx(3 * 0.065)
    assert (model.prompt_tokens, model.completion_tokens) == (300, 30)


def test_max_cost_stops_cleanly_and_keeps_finished_answers(server):
    model = make(server, concurrency=1, price_prompt_per_1k=0.5, price_completion_per_1k=1.5, max_cost=0.1)
    with pytest.raises(BudgetExceeded) as info:
        model.generate([request(f"q{i}") for i in range(5)])
    answered = [r is not None for r in info.value.responses]
    assert answered == [True, True, False, False, False]
    assert len(server.bodies) == 2, "nothing is sent past the budget"
    with pytest.raises(BudgetExceeded) as again:
        model.generate([request("later")])
    assert again.value.responses == [None]


def test_in_flight_requests_finish_when_the_budget_is_hit():
    server = ScriptedServer(delay=0.2)
    try:
        model = make(server, concurrency=3, price_prompt_per_1k=1.0, max_cost=0.05)
        with pytest.raises(BudgetExceeded) as info:
            model.generate([request(f"q{i}") for i in range(9)])
        answered = sum(r is not None for r in info.value.responses)
        assert answered == len(server.bodies) >= 3, "every request sent was answered and kept"
        assert answered < 9
    finally:
        server.close()


def test_keeps_at_most_concurrency_requests_in_flight():
    server = ScriptedServer(delay=0.2)
    try:
        model = make(server, concurrency=4)
        responses = model.generate([request(f"q{i}") for i in range(12)])
        assert [r.text for r in responses] == [f"answer to: q{i}" for i in range(12)], "order is kept"
        assert 2 <= server.max_in_flight <= 4
    finally:
        server.close()


def test_structured_json_passthrough_and_several_samples(server):
    model = make(server)
    [structured] = model.generate(
        [request("give boxes [json]", gen={"response_format": {"type": "json_object"}})]
    )
    assert structured.structured == {"answer": "B", "boxes": [[1, 2, 3, 4]]}
    assert server.bodies[-1]["response_format"] == {"type": "json_object"}
    [sampled] = model.generate([request("sample", gen={"temperature": 0.8, "n": 3, "until": ["\n"]})])
    assert len(sampled.structured["samples"]) == 3
    assert server.bodies[-1]["n"] == 3 and server.bodies[-1]["stop"] == ["\n"]
    assert server.bodies[-1]["temperature"] == 0.8


def test_api_key_comes_from_the_named_environment_variable(server, monkeypatch):
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(ValueError, match="api_key_env=MY_KEY"):
        make(server, api_key_env="MY_KEY")
    monkeypatch.setenv("MY_KEY", "sk-test")
    model = make(server, api_key_env="MY_KEY")
    assert model.client._headers["Authorization"] == "Bearer sk-test"
    assert "sk-test" not in json.dumps(model.identity())


def test_identity_ignores_url_concurrency_and_prices(server):
    a = make(server, concurrency=1, price_prompt_per_1k=1.0).identity()
    b = make(server, concurrency=16, base_url="http://127.0.0.1:1/v1").identity()
    assert a == b
    assert make(server, image_format="png").identity() != a


TORCHCODEC_500 = b'{"error": "torchcodec is not installed or can\'t be loaded"}'


def test_a_server_failing_every_request_the_same_way_is_given_up_at_once():
    server = ScriptedServer(broken=TORCHCODEC_500)
    try:
        model = make(server, concurrency=4, max_retries=6)
        results = dict(model.generate_iter([request(f"q{i}", doc=f"d{i}") for i in range(20)]))
    finally:
        server.close()
    assert sorted(results) == list(range(20))
    assert all(isinstance(r, RepeatedServerError) for r in results.values()), "every sample is counted an error"
    assert {r.reason for r in results.values()} == {"repeated_server_error"}
    assert len({str(r) for r in results.values()}) == 1, "one error for the run"
    message = str(results[0])
    assert "HTTP 500" in message and "torchcodec" in message and "FFmpeg" in message and "rerun" in message
    # without the check: 20 requests x 7 attempts = 140; with it, at most one wave of `concurrency` retries
    assert len(server.bodies) <= 8, len(server.bodies)


def test_the_error_of_a_broken_video_server_says_what_video_decoding_needs():
    # transformers serve without FFmpeg's libraries: Starlette's plain 500 for every video request
    server = ScriptedServer(broken=b"Internal Server Error")
    try:
        model = make(server, video_mode="video", concurrency=2)
        results = dict(model.generate_iter([request(f"q{i}", clips=1, doc=f"d{i}") for i in range(6)]))
    finally:
        server.close()
    assert all(isinstance(r, RepeatedServerError) for r in results.values())
    assert "Internal Server Error" in str(results[0]) and "torchcodec" in str(results[0])


def test_one_failing_request_among_answered_ones_keeps_being_retried(server):
    model = make(server, concurrency=1, max_retries=3)
    texts = ["a", "b [500x3]", "c", "d [500x2]", "e"]
    responses = model.generate([request(t) for t in texts])
    assert [r.usage["retries"] for r in responses] == [0, 3, 0, 2, 0]
    assert model.client.streak.opened is None


def test_a_broken_server_ends_the_run_quickly_with_every_sample_counted(with_plugin, colors_root, tmp_path):
    from harness.config.run import RunConfig
    from harness.engine.runner import run

    server = ScriptedServer(broken=TORCHCODEC_500)
    try:
        args = {"model": "m", "base_url": server.url, "concurrency": 4, "backoff_base": 0.05, "max_backoff": 0.1}
        cfg = RunConfig(["colors_qa"], "openai", args, data=colors_root, no_cache=True, progress=False)
        out = run(cfg)
    finally:
        server.close()
    res = out.results["task_results"]["colors_qa"]
    assert out.results["complete"] is False
    assert res["n_errors"] == res["n_rows"] == 24 and res["errors_by_reason"] == {"generation": {"repeated_server_error": 24}}
    assert len(server.bodies) <= 8, len(server.bodies)


@pytest.mark.parametrize(
    ("arg", "value", "why"),
    [
        ("request_deadline", "nan", "is not a finite number"),  # before: accepted, a deadline never reached
        ("request_deadline", float("inf"), "is not a finite number"),
        ("timeout", "inf", "is not a finite number"),
        ("concurrency", float("inf"), "is not a whole number"),  # before: an OverflowError traceback
        ("concurrency", 2.5, "is not a whole number"),  # before: quietly 2
        ("max_retries", True, "is not a whole number"),  # before: quietly 1
        ("max_cost", False, "is not a number"),
    ],
)
def test_numeric_model_args_must_be_finite_and_whole_where_counted(arg, value, why):
    with pytest.raises(ModelArgsError, match=f"model 'openai': argument {arg}=.*{why}"):
        OpenAIModel(base_url="http://127.0.0.1:9/v1", model="m", **{arg: value})
    assert OpenAIModel(base_url="http://127.0.0.1:9/v1", model="m", concurrency=4.0, max_retries="3").concurrency == 4
