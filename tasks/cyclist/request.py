"""The request-side hooks of CycliST: the target, the oracle's reply and the `random` baseline's answer space."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from harness_tasks.cyclist.caption_parser import describe_objects
from harness_tasks.cyclist.parsing import judge_case
from harness_tasks.cyclist.vocab import COLORS, DOMAINS, MATERIALS, SHAPES, SIZES


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
