"""A chat-completions reply without a usable message (null, missing or mistyped message or content, no choices,
a refusal, a content-filter stop) is retried and then a counted `generation` error: never scored, never cached.

A scripted server on 127.0.0.1 answers each prompt with the body its directive names (`[kind]` always,
`[kindxN]` for the first N attempts of that prompt, then a good answer)."""

from __future__ import annotations

import json
import re
import threading

import pytest
from servers.chat import ChatServer

from harness.config.run import RunConfig
from harness.contract.messages import Message, Request, TextPart
from harness.engine.runner import run
from harness_models.openai_api.adapter import OpenAIModel
from harness_models.openai_api.client import UnusableReplyError

GOOD = {"role": "assistant", "content": "red"}
#: each hostile body, and the reason its error records
BODIES = {
    "null_message": ({"choices": [{"index": 0, "message": None, "finish_reason": "stop"}]}, "no_message"),
    "missing_message": ({"choices": [{"index": 0, "finish_reason": "stop"}]}, "no_message"),
    "message_string": ({"choices": [{"index": 0, "message": "red"}]}, "malformed_message"),
    "null_content": ({"choices": [{"message": {"role": "assistant", "content": None}}]}, "no_content"),
    "content_number": ({"choices": [{"message": {"role": "assistant", "content": 7}}]}, "malformed_content"),
    "content_list": ({"choices": [{"message": {"role": "assistant", "content": ["red"]}}]}, "malformed_content"),
    "empty_choices": ({"choices": []}, "no_choices"),
    "no_choices": ({"id": "x", "object": "chat.completion"}, "no_choices"),
    "choices_null": ({"choices": None}, "no_choices"),
    "choice_string": ({"choices": ["red"]}, "malformed_choice"),
    "body_list": ([{"message": GOOD}], "malformed_body"),
    "refusal": ({"choices": [{"message": {"role": "assistant", "content": None, "refusal": "I can't"}}]}, "refusal"),
    "content_filter": ({"choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "content_filter"}]}, "content_filter"),
    "usage_string": ({"choices": [{"message": GOOD}], "usage": "lots"}, "malformed_usage"),
    "usage_negative": ({"choices": [{"message": GOOD}], "usage": {"prompt_tokens": -900}}, "malformed_usage"),
    "usage_text_count": ({"choices": [{"message": GOOD}], "usage": {"completion_tokens": "9"}}, "malformed_usage"),
    "second_choice_null": ({"choices": [{"message": GOOD}, {"message": None}]}, "no_message"),
}


class ReplyServer(ChatServer):
    """Answers every prompt with the body its `[kind]` / `[kindxN]` directive names, else a good answer."""

    def __init__(self, always: str | None = None) -> None:
        self.always = always
        self.attempts: dict[str, int] = {}
        self.lock = threading.Lock()
        super().__init__()

    def reply(self, handler, body):
        text = json.dumps(body["messages"])
        with self.lock:
            attempt = self.attempts.get(text, 0)
            self.attempts[text] = attempt + 1
        kind, times = self.always, None
        found = re.search(r"\[(\w+?)(?:x(\d+))?\]", text)
        if found and found.group(1) in BODIES:
            kind, times = found.group(1), found.group(2)
        if kind is not None and (times is None or attempt < int(times)):
            return self.send(handler, 200, json.dumps(BODIES[kind][0]).encode())
        answer = {"choices": [{"message": GOOD, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5}}
        self.send(handler, 200, json.dumps(answer).encode())

    @property
    def total(self) -> int:
        return sum(self.attempts.values())


@pytest.fixture
def server():
    s = ReplyServer()
    yield s
    s.close()


def make(server, **args):
    defaults = {"model": "m", "base_url": server.url, "backoff_base": 0.001, "max_backoff": 0.002}
    return OpenAIModel(**{**defaults, **args})


def request(text, doc="d"):
    return Request(messages=[Message("user", [TextPart(text)])], gen_kwargs={}, doc_id=doc)


@pytest.mark.parametrize("kind", sorted(BODIES))
def test_a_reply_without_a_usable_message_is_retried_then_an_error_with_its_reason(server, kind):
    model = make(server, max_retries=2)
    [(_, result)] = list(model.generate_iter([request(f"q [{kind}]")]))
    assert isinstance(result, UnusableReplyError), f"{kind} was taken as an answer: {result!r}"
    assert result.reason == BODIES[kind][1]
    assert "gave up after 3 attempts" in str(result) and "usable message" in str(result)
    assert server.total == 3, "retried as docs/models.md says (max_retries=2: three attempts)"


def test_an_unusable_reply_that_a_retry_cures_is_the_retried_answer(server):
    model = make(server, max_retries=3)
    [response] = model.generate([request("q [null_messagex2]")])
    assert response.text == "red" and response.usage["retries"] == 2


def test_a_run_counts_unusable_replies_as_generation_errors_and_caches_none(with_plugin, colors_root, tmp_path):
    server = ReplyServer(always="null_message")
    try:
        args = {"model": "m", "base_url": server.url, "max_retries": 1, "backoff_base": 0.001, "max_backoff": 0.002}
        cfg = RunConfig(["colors_qa"], "openai", args, data=colors_root, cache_dir=tmp_path / "c", progress=False)
        first = run(cfg)
        sent = server.total
        second = run(cfg)
    finally:
        server.close()
    res = first.results["task_results"]["colors_qa"]
    assert first.results["complete"] is False
    assert res["n_errors"] == res["n_rows"] == 24
    assert res["errors_by_reason"] == {"generation": {"no_message": 24}}
    assert sent == 2 * len(server.attempts), "every distinct request tried twice (max_retries=1)"
    assert server.total == 2 * sent, "nothing was cached: the rerun asks the server again"
    assert second.results["task_results"]["colors_qa"]["n_errors"] == 24


def test_a_body_nested_past_the_json_parser_is_a_malformed_body(server):
    class Deep(ReplyServer):
        def reply(self, handler, body):
            self.attempts["x"] = self.attempts.get("x", 0) + 1
            self.send(handler, 200, b'{"choices": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")

    deep = Deep()
    try:
        [(_, result)] = list(make(deep, max_retries=1).generate_iter([request("q")]))
    finally:
        deep.close()
    assert "malformed response body" in str(result) and deep.total == 2, result
