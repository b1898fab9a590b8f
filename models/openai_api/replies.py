"""A chat-completions reply checked before it is an answer: every choice must carry a usable message.

A server can answer HTTP 200 with a body that is no answer: no `choices` (or an empty list), a choice whose
`message` is null, missing or not an object, a `content` that is null, missing or not a string, a message
that carries a `refusal` instead of content, a choice cut off by the server's content filter
(`finish_reason: content_filter`), or a `usage` whose token counts are not counts. Such a reply is never
scored (its text would be "" and score as a wrong answer) and never cached: the client retries it like a
malformed body, and when every attempt gave one the request becomes a `generation` error whose reason is the
`UnusableReply.reason` below.
"""

from __future__ import annotations

from typing import Any

#: finish reasons that mean "the server withheld the answer": the text is not the model's answer
REFUSAL_FINISH_REASONS = ("content_filter",)
#: the token counts of `usage` the adapter reads (prices and budgets)
USAGE_COUNTS = ("prompt_tokens", "completion_tokens")


class UnusableReply(ValueError):
    """A reply with no usable message; `reason` is the short tag recorded with the sample's error."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"unusable reply ({reason}): {detail}")
        self.reason = reason


def check_reply(data: Any) -> None:
    """UnusableReply naming what is wrong when `data` (a decoded chat-completions body) has no usable answer in
    every choice; returns quietly for a reply whose every choice has a string `content`."""
    if not isinstance(data, dict):
        raise UnusableReply("malformed_body", f"the body is a JSON {type(data).__name__}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise UnusableReply("no_choices", f"'choices' is {_show(choices)}, not a non-empty list")
    for index, choice in enumerate(choices):
        _check_choice(choice, index)
    _check_usage(data.get("usage"))


def _check_usage(usage: Any) -> None:
    """`usage`, when given, is an object whose token counts are whole numbers, none negative: the cost and
    the max_cost budget are computed from them."""
    if usage is None:
        return
    if not isinstance(usage, dict):
        raise UnusableReply("malformed_usage", f"'usage' is {_show(usage)}, not an object")
    for key in USAGE_COUNTS:
        count = usage.get(key)
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise UnusableReply("malformed_usage", f"usage.{key} is {_show(count)}, not a count")


def _check_choice(choice: Any, index: int) -> None:
    where = f"choices[{index}]"
    if not isinstance(choice, dict):
        raise UnusableReply("malformed_choice", f"{where} is {_show(choice)}, not an object")
    finish = choice.get("finish_reason")
    if finish in REFUSAL_FINISH_REASONS:
        raise UnusableReply(str(finish), f"{where} has finish_reason={finish!r}: the server withheld the answer")
    message = choice.get("message")
    if message is None:
        raise UnusableReply("no_message", f"{where}.message is {_show(message)}")
    if not isinstance(message, dict):
        raise UnusableReply("malformed_message", f"{where}.message is {_show(message)}, not an object")
    content = message.get("content")
    if message.get("refusal") and not content:
        raise UnusableReply("refusal", f"{where}.message is a refusal: {str(message['refusal'])[:200]!r}")
    if content is None:
        raise UnusableReply("no_content", f"{where}.message.content is {_show(content)}")
    if not isinstance(content, str):
        raise UnusableReply("malformed_content", f"{where}.message.content is {_show(content)}, not a string")


def _show(value: Any) -> str:
    """A value as the message shows it: null/missing, or its JSON type and a short excerpt."""
    if value is None:
        return "null or missing"
    return f"{type(value).__name__} {str(value)[:80]!r}"
