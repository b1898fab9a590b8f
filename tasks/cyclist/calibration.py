"""Judge calibration: agreement of a judge with the shipped, hand-labelled calibration sets.

`calibration/<case>.jsonl` holds free-form answers written for this project with the correct extraction
("label": a value or "indefinite"; objects: the correct object list). `calibrate(judge, case)` runs the
rule judge (judge=None) or an LLM judge client on every item and reports agreement per case: accuracy
for yes/no, numbers and attributes, mean per-caption F1 of exact object mapping for objects, as the
paper reports (Sec. 5: 100 %, 100 %, 92.6 %, 87.6 % F1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from harness_metrics import precision_recall_f1
from harness_tasks.cyclist.caption_parser import extract_objects
from harness_tasks.cyclist.families import UNITS
from harness_tasks.cyclist.llm_judge import CASES, JudgeReplyError, judge_answer
from harness_tasks.cyclist.rule_judge import Extraction, extract_attribute, extract_number, extract_yes_no

CALIBRATION_DIR = Path(__file__).with_name("calibration")
PAPER_AGREEMENT = {"yes_no": 1.0, "number": 1.0, "attribute": 0.926, "objects": 0.876}
OBJECT_FIELDS = ("mesh", "material", "size", "color", "linear", "orbit", "rotate", "resize", "recolor")


def load_items(case: str) -> list[dict]:
    """The calibration items of one case."""
    if case not in CASES:
        raise ValueError(f"unknown calibration case '{case}'; known: {', '.join(CASES)}")
    path = CALIBRATION_DIR / f"{case}.jsonl"
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _reading(ext: Extraction) -> Any:
    return "indefinite" if ext.indefinite else ext.value


def judge_item(case: str, item: dict, judge: Any = None) -> Any:
    """What the judge reads from one item: a value, "indefinite", "invalid" or a list of objects."""
    try:
        if case == "objects":
            if judge is None:
                return extract_objects(item["caption"])
            return judge_answer("objects", judge, caption=item["caption"])
        if judge is not None:
            fields = {"question": item.get("question", ""), "answer": item["answer"], "unit": "things"}
            return _reading(judge_answer(case, judge, domain=item.get("domain"), **fields))
    except JudgeReplyError:
        return "invalid"
    if case == "yes_no":
        return _reading(extract_yes_no(item["answer"]))
    if case == "number":
        return _reading(extract_number(item["answer"], UNITS.get(item.get("family", ""), ())))
    return _reading(extract_attribute(item["answer"], item["domain"], item.get("question", "")))


def _object_key(o: dict) -> tuple:
    return tuple(bool(o.get(k)) if k in OBJECT_FIELDS[4:] else o.get(k) for k in OBJECT_FIELDS)


def calibrate_case(case: str, judge: Any = None) -> dict[str, Any]:
    """Agreement of the judge with one case's calibration set, with the disagreeing items."""
    items = load_items(case)
    scores, misses = [], []
    for item in items:
        got = judge_item(case, item, judge)
        if case == "objects":
            pred = [_object_key(o) for o in got] if isinstance(got, list) else []
            score = precision_recall_f1(pred, [_object_key(o) for o in item["objects"]])["f1"]
        else:
            label = item["label"]
            score = float(
                got == label or (isinstance(got, (int, float)) and not isinstance(got, bool) and got == label)
            )
        scores.append(score)
        if score < 1.0:
            misses.append({"id": item["id"], "got": got, "expected": item.get("label", item.get("objects"))})
    agreement = sum(scores) / len(scores) if scores else float("nan")
    return {
        "case": case,
        "metric": "mean F1 of object mapping" if case == "objects" else "accuracy",
        "n_items": len(items),
        "agreement": round(agreement, 4),
        "paper": PAPER_AGREEMENT[case],
        "meets_paper": agreement >= PAPER_AGREEMENT[case],
        "disagreements": misses,
    }


def calibrate(judge: Optional[Any] = None, case: Optional[str] = None) -> dict[str, Any]:
    """Agreement per case (all four unless `case` names one) for the rule judge (None) or an LLM judge
    client (harness JudgeClient: `.ask(prompt, template_id=...)`, `.register_template(id, text)`)."""
    cases = [case] if case else list(CASES)
    return {
        "judge": "rule" if judge is None else getattr(judge, "name", "llm"),
        "cases": {c: calibrate_case(c, judge) for c in cases},
    }
