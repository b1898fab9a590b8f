"""The LLM-judge path: this project's prompt templates for the four cases, strict JSON replies.

`judge_answer(case, judge, ...)` renders `judge_prompts/<case>.jinja`, registers its hash with the judge
client (so results record which prompt judged), asks at temperature 0 through the client's cache and
reads one JSON object. A reply that is not that JSON, or names a value outside the allowed ones, is an
`Extraction` with `invalid` set: the sample counts as invalid, never as a silently guessed answer.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any, Optional

from jinja2.sandbox import SandboxedEnvironment

from harness_tasks.cyclist.caption_parser import objects_from_json
from harness_tasks.cyclist.rule_judge import Extraction
from harness_tasks.cyclist.vocab import DOMAINS

PROMPT_DIR = Path(__file__).with_name("judge_prompts")
CASES = ("yes_no", "number", "attribute", "objects")
JUDGE_GEN = {"temperature": 0.0, "max_new_tokens": 512}


class JudgeReplyError(ValueError):
    """A judge reply that is not the strict JSON the prompt asks for; the message says what was wrong."""


@cache
def template_text(case: str) -> str:
    """The raw text of a case's judge prompt template."""
    if case not in CASES:
        raise ValueError(f"unknown judge case '{case}'; known: {', '.join(CASES)}")
    return (PROMPT_DIR / f"{case}.jinja").read_text(encoding="utf-8")


def template_id(case: str) -> str:
    """The id under which a case's template hash is recorded in results."""
    return f"cyclist/{case}"


def render_prompt(case: str, **fields: Any) -> str:
    """The judge prompt for one answer (Jinja2 sandbox)."""
    env = SandboxedEnvironment(keep_trailing_newline=True, autoescape=False)
    return env.from_string(template_text(case)).render(**fields)


def read_json_reply(reply: str) -> dict:
    """The one JSON object in a judge reply (a ```json fence is tolerated); JudgeReplyError otherwise."""
    text = (reply or "").strip()
    fence = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    if fence:
        text = fence.group(1)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JudgeReplyError(f"judge reply is not one JSON object ({exc.msg}): {reply[:120]!r}") from None
    if not isinstance(value, dict):
        raise JudgeReplyError(f"judge reply is JSON but not an object: {reply[:120]!r}")
    return value


def interpret(case: str, reply: dict, domain: Optional[str] = None) -> Any:
    """The canonical value (or Extraction for indefinite) a parsed judge reply stands for."""
    if case == "objects":
        objs = objects_from_json(reply)
        if objs is None:
            raise JudgeReplyError("judge reply has no 'mapped_objects' list of objects")
        return objs
    if "answer" not in reply:
        raise JudgeReplyError(f"judge reply has no 'answer' field: {reply}")
    ans = reply["answer"]
    if isinstance(ans, str) and ans.strip().lower() in ("indefinite", "undetermined"):
        return Extraction(indefinite=True, reason="judge: indefinite")
    if case == "yes_no":
        if isinstance(ans, bool):
            return "yes" if ans else "no"
        if str(ans).strip().lower() in ("yes", "no"):
            return str(ans).strip().lower()
        raise JudgeReplyError(f"judge answer {ans!r} is not yes, no or indefinite")
    if case == "number":
        try:
            v = float(ans)
        except (TypeError, ValueError):
            raise JudgeReplyError(f"judge answer {ans!r} is not a number or indefinite") from None
        return int(v) if v == int(v) else v
    value = str(ans).strip().lower()
    if value not in DOMAINS.get(domain or "", ()):
        raise JudgeReplyError(f"judge answer {ans!r} is not one of {DOMAINS.get(domain or '', ())}")
    return value


def judge_answer(case: str, judge: Any, domain: Optional[str] = None, **fields: Any) -> Extraction | list:
    """Ask the judge about one answer; returns an Extraction (objects: the list of objects)."""
    if case == "attribute":
        fields.setdefault("choices", list(DOMAINS[domain or "color"]))
    prompt = render_prompt(case, **fields)
    judge.register_template(template_id(case), template_text(case))
    reply = judge.ask(prompt, template_id=template_id(case), gen_kwargs=dict(JUDGE_GEN))
    value = interpret(case, read_json_reply(reply), domain)
    if case == "objects" or isinstance(value, Extraction):
        return value
    return Extraction(value)
