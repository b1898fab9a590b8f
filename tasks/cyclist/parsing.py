"""The parse hook of CycliST: the rule judge, or the LLM judge when one is given, reads a reply into a
canonical value, "indefinite", or (captions) a list of objects."""

from __future__ import annotations

from typing import Any

from harness.api import Parsed, Response
from harness_tasks.cyclist.caption_parser import extract_objects
from harness_tasks.cyclist.families import UNITS
from harness_tasks.cyclist.llm_judge import JudgeReplyError, judge_answer
from harness_tasks.cyclist.rule_judge import Extraction, extract_attribute, extract_number, extract_yes_no

INDEFINITE = "indefinite"
CASE_OF_KIND = {"yes/no": "yes_no", "integer": "number", "attribute": "attribute"}


def judge_case(doc: dict) -> str:
    """Which of the four judge cases a row needs."""
    if "objects" in doc and "answer_kind" not in doc:
        return "objects"
    return CASE_OF_KIND[doc["answer_kind"]]


def rule_extract(case: str, text: str, doc: dict) -> Extraction:
    """The rule judge's reading of one VQA answer."""
    if case == "yes_no":
        return extract_yes_no(text)
    if case == "number":
        return extract_number(text, UNITS.get(doc.get("family", ""), ()))
    return extract_attribute(text, doc.get("domain") or "color", doc.get("question", ""))


def parse(response: Response, doc: dict, judge: Any = None) -> Parsed:
    """The model's answer as a canonical value, "indefinite", or (captions) a list of objects."""
    text = response.text or ""
    case = judge_case(doc)
    who = "rule" if judge is None else f"llm:{getattr(judge, 'name', 'judge')}"
    if not text.strip() and response.structured is None:
        return Parsed(answer=None, valid=False, note="empty reply", extra={"judge": who})
    try:
        if case == "objects":
            if judge is None:
                objs = extract_objects(text, response.structured)
            else:
                objs = judge_answer("objects", judge, caption=text)
            return Parsed(answer=objs, extra={"judge": who, "n_objects": len(objs)})
        if judge is None:
            ext = rule_extract(case, text, doc)
        else:
            ext = judge_answer(
                case,
                judge,
                domain=doc.get("domain"),
                question=doc.get("question", ""),
                answer=text,
                unit=" ".join(u.rstrip("?s") for u in UNITS.get(doc.get("family", ""), ("things",))[:1])
                + "s",
            )
    except JudgeReplyError as exc:
        return Parsed(answer=None, valid=False, note=str(exc), extra={"judge": who})
    if ext.indefinite:
        return Parsed(
            answer=INDEFINITE, note=f"indefinite: {ext.reason}", extra={"judge": who, "indefinite": True}
        )
    return Parsed(answer=ext.value, extra={"judge": who, "indefinite": False})
