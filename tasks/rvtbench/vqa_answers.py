"""VQA answer correctness: the rule judge over a build's canonical answers, or a judge model.

A build's VQA rows carry a canonical short answer and its kind (builders/rvtbench/vqa.py): a value, a count,
an event phrase, left/right, before/after or yes/no. The rule judge reads the reply for that kind: yes/no,
left/right and before/after by the first such word outside the build's event phrases (so "It moves to the
left before ..." answers `before`, as its reference states it, and old builds' "appears after the start" is
no answer), counts by the first number (digits or words), values and events by whole-word containment with no
other value of the vocabulary present. With `--judge NAME` a registered model judges
instead (prompt below, hashed into the results). Rows without a canonical answer (the release, LLM-written
answers) get accuracy None, reported as not computed.
"""

from __future__ import annotations

import re
from typing import Any

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
JUDGE_TEMPLATE = (
    "You grade answers to questions about a video.\nQuestion: {question}\nCorrect answer: {canonical}\n"
    "Given answer: {reply}\nIs the given answer correct? Reply with one word: yes or no."
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _contains(text: str, phrase: str) -> bool:
    return re.search(r"\b" + re.escape(phrase.lower()) + r"\b", text.lower()) is not None


def _without(text: str, phrases: list[str]) -> str:
    """`text` with every whole-word occurrence of the phrases blanked out (longest first)."""
    for phrase in sorted(phrases, key=len, reverse=True):
        text = re.sub(r"\b" + re.escape(phrase.lower()) + r"\b", " ", text.lower())
    return text


def rule_correct(
    reply: str,
    canonical: str,
    kind: str,
    vocabulary: list[str] | None = None,
    events: list[str] | None = None,
) -> bool:
    """Whether `reply` gives the canonical answer of a question of this kind (`events`: the build's event
    phrases, which are never the answer of a yes/no, left/right or before/after question)."""
    words = _words(reply)
    if kind in ("yes_no", "relation", "order"):
        options = {"yes_no": ("yes", "no"), "relation": ("left", "right"), "order": ("before", "after")}[kind]
        first = next((w for w in _words(_without(reply, events or [])) if w in options), None)
        return first == canonical
    if kind == "count":
        for w in words:
            if w.isdigit():
                return int(w) == int(canonical)
            if w in NUMBER_WORDS:
                return NUMBER_WORDS.index(w) == int(canonical)
        return False
    if not _contains(reply, canonical):
        return False
    others = [v for v in vocabulary or [] if v != canonical and not _contains(canonical, v)]
    return not any(_contains(reply, v) for v in others)


def judged_correct(judge: Any, doc: dict, reply: str) -> bool | None:
    """The LLM judge's verdict (None when it answers neither yes nor no)."""
    judge.register_template("rvtbench_vqa", JUDGE_TEMPLATE)
    prompt = JUDGE_TEMPLATE.format(question=doc["query"], canonical=doc["answer"]["canonical"], reply=reply)
    first = next(
        (w for w in _words(judge.ask(prompt, template_id="rvtbench_vqa")) if w in ("yes", "no")), None
    )
    return None if first is None else first == "yes"
