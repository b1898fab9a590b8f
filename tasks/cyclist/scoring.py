"""The score hook of CycliST: VQA accuracy, absolute error and the indefinite rate; caption precision, recall
and F1 of the paper's object and cycle matching."""

from __future__ import annotations

from typing import Any, Optional

from harness.api import Parsed
from harness_tasks.cyclist.caption_match import caption_scores
from harness_tasks.cyclist.parsing import INDEFINITE, judge_case

CAPTION_KEYS = ("obj_precision", "obj_recall", "obj_f1", "cycle_precision", "cycle_recall", "cycle_f1")


def _is_indefinite(parsed: Parsed) -> bool:
    return bool(parsed.valid and (parsed.extra or {}).get("indefinite", parsed.answer == INDEFINITE))


def score(parsed: Parsed, target: Any, doc: dict) -> dict[str, Optional[float]]:
    """VQA: accuracy (indefinite = wrong), abs_error (numeric families, definite answers only), indefinite.
    Captions: object- and cycle-level precision, recall and F1 of the paper's matching."""
    if judge_case(doc) == "objects":
        if not parsed.valid or not isinstance(parsed.answer, list):
            return dict.fromkeys(CAPTION_KEYS, 0.0)
        s = caption_scores(parsed.answer, list(target))
        return {k: s[k] for k in CAPTION_KEYS}
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
