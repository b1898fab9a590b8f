"""Task hooks of the CycliST plugin: parse (rule judge, or the LLM judge when one is given), score,
the oracle's answer and the answer space of the `random` baseline."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Optional

from harness.api import Parsed, Response
from tasks.cyclist.caption_match import caption_scores
from tasks.cyclist.caption_parser import describe_objects, extract_objects
from tasks.cyclist.families import UNITS
from tasks.cyclist.llm_judge import JudgeReplyError, judge_answer
from tasks.cyclist.rule_judge import Extraction, extract_attribute, extract_number, extract_yes_no
from tasks.cyclist.vocab import COLORS, DOMAINS, MATERIALS, SHAPES, SIZES

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


def _is_indefinite(parsed: Parsed) -> bool:
    return bool(parsed.valid and (parsed.extra or {}).get("indefinite", parsed.answer == INDEFINITE))


def score(parsed: Parsed, target: Any, doc: dict) -> dict[str, Optional[float]]:
    """VQA: accuracy (indefinite = wrong), abs_error (numeric families, definite answers only), indefinite.
    Captions: object- and cycle-level precision, recall and F1 of the paper's matching."""
    if judge_case(doc) == "objects":
        keys = ("obj_precision", "obj_recall", "obj_f1", "cycle_precision", "cycle_recall", "cycle_f1")
        if not parsed.valid or not isinstance(parsed.answer, list):
            return dict.fromkeys(keys, 0.0)
        s = caption_scores(parsed.answer, list(target))
        return {k: s[k] for k in keys}
    indefinite = _is_indefinite(parsed)
    ok = parsed.valid and not indefinite and parsed.answer == target
    out: dict[str, Optional[float]] = {
        "accuracy": float(ok),
        "indefinite": float(indefinite),
        "abs_error": None,
    }
    if doc.get("answer_kind") == "integer" and parsed.valid and not indefinite:
        try:
            out["abs_error"] = abs(float(parsed.answer) - float(target))
        except (TypeError, ValueError):
            out["abs_error"] = None
    return out


def target(doc: dict) -> Any:
    """The canonical ground truth: "yes"/"no", an int, a lower-case attribute, or (captions) the objects."""
    return doc["objects"] if judge_case(doc) == "objects" else doc["target"]


def oracle_answer(doc: dict, target: Any) -> str:
    """A short free-form reply stating the target, phrased as a model would."""
    case = judge_case(doc)
    if case == "objects":
        return describe_objects(target)
    if case == "yes_no":
        return "Yes." if target == "yes" else "No."
    if case == "number":
        return f"The answer is {target}."
    return f"It is {target}."


def doc_domain(doc: dict) -> list[str]:
    """The answers a row's question type allows (yes/no, an attribute domain); integers: the row's own."""
    case = judge_case(doc)
    if case == "yes_no":
        return ["yes", "no"]
    if case == "attribute":
        return list(DOMAINS.get(doc.get("domain") or "", (str(doc["target"]),)))
    return [str(doc["target"])]


def _space_of(docs: list[dict]) -> list[str]:
    if docs and judge_case(docs[0]) == "objects":
        return [
            describe_objects([{"size": z, "color": c, "material": m, "mesh": s}])
            for z in SIZES
            for c in COLORS
            for m in MATERIALS
            for s in SHAPES
        ]
    seen: dict[str, None] = {}
    integers: set[int] = set()
    for d in docs:
        if judge_case(d) == "number":
            integers.add(int(d["target"]))
        else:
            seen.update(dict.fromkeys(doc_domain(d)))
    return list(seen) + [str(i) for i in sorted(integers)]


def answer_space(docs: list[dict]) -> dict[str, list[str]]:
    """The `random` baseline's answers per question family (the task's prior key), in a fixed order: every
    value the family's question types allow (integer families: the values their rows hold); captions get
    one-object captions of every kind."""
    by_family: dict[str, list[dict]] = defaultdict(list)
    for d in docs:
        by_family[str(d.get("family", ""))].append(d)
    return {family: _space_of(rows) for family, rows in sorted(by_family.items())}
