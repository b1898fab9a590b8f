"""The aggregate hook: the paper's tables from per-sample records, each value with its counts.

Per-dimension accuracy, micro overall and mean over dimensions (each both ways: invalid excluded, the
headline, and invalid as wrong); per-video joint accuracy (>=1, >=2, 3/3 and the pairs S+A, S+P, A+P over
videos whose three dimensions all have a valid answer, as the public analysis); chance levels (binomial,
p = 0.25); error sources (which distractor kind or, in Mixed, which dimension was chosen when wrong);
plus the reordering and pass@k analyses when the task runs them (tasks/tempcloze/sensitivity.py) and the
visible-span table (accuracy per K context frames, per dimension, with the frames each clip really got)
and, when items carry their dataset source, the per-source table of Appendix E (per-dimension and mean
accuracy, joint >=1/>=2/3/3 and pairs per source). A record whose dimension is written "C" (the public
code's key for Progression) counts as "P" everywhere.
Samples with a harness error (e.g. a missing video) are counted under "errors" and left out of every rate.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations
from math import comb
from typing import Any, Optional

from harness.api import Task
from harness_tasks.tempcloze.protocol import (
    DIMENSION_NAMES,
    DIMENSIONS,
    DISTRACTORS,
    canonical_dimension,
    kind_of,
)
from harness_tasks.tempcloze.sensitivity import pass_at_k_table, reordering_table
from harness_tasks.tempcloze.span import FULL

P_CHANCE = 0.25
HEADLINE_NOTE = (
    "accuracy: invalid answers excluded, as the public TempCloze analysis (the headline); "
    "accuracy_strict: invalid answers counted as wrong"
)


def _rate(num: int, den: int) -> Optional[float]:
    return round(num / den, 10) if den else None


def _parsed(rec: dict) -> dict:
    return rec.get("parsed") or {}


def is_valid(rec: dict) -> bool:
    """A scored sample whose answer parsed to a letter."""
    return not rec.get("error") and bool(_parsed(rec).get("valid"))


def is_correct(rec: dict) -> bool:
    """A valid answer equal to the target letter."""
    return is_valid(rec) and _parsed(rec).get("answer") == rec.get("target")


def accuracy_cell(records: list[dict]) -> dict[str, Any]:
    """Counts and both accuracies of a set of samples."""
    errors = sum(1 for r in records if r.get("error"))
    valid = sum(1 for r in records if is_valid(r))
    invalid = len(records) - errors - valid
    correct = sum(1 for r in records if is_correct(r))
    return {
        "n_items": len(records),
        "n_valid": valid,
        "n_invalid": invalid,
        "n_errors": errors,
        "n_correct": correct,
        "accuracy": _rate(correct, valid),
        "accuracy_strict": _rate(correct, valid + invalid),
    }


def mean_of_cells(values: list[Optional[float]]) -> Optional[float]:
    """The mean over dimensions (the paper's "Mean"): None when there is none, or when a dimension's cell is
    empty (no valid answer), so a dimension whose answers all failed never leaves the mean to the others."""
    if not values or any(v is None for v in values):
        return None
    return round(sum(values) / len(values), 10)  # type: ignore[arg-type]


def chance_levels(dims: int = 3, p: float = P_CHANCE) -> dict[str, float]:
    """Chance levels of a uniform guess per item: accuracy, >=1 / >=2 / all of `dims`, and a pair."""
    at_least = {
        k: sum(comb(dims, j) * p**j * (1 - p) ** (dims - j) for j in range(k, dims + 1)) for k in (1, 2, 3)
    }
    return {
        "accuracy": p,
        "at_least_1": round(at_least[1], 10),
        "at_least_2": round(at_least[2], 10),
        "all_3": round(at_least[3], 10),
        "pair": round(p * p, 10),
    }


def joint_table(records: list[dict], strict: bool = False) -> dict[str, Any]:
    """Per-video joint accuracy over videos whose S, A and P answers are all valid (base order only), as
    the public analysis; `strict`: over videos whose three samples were all scored, an invalid answer
    counted wrong (so invalid answers can never raise it)."""
    by_video: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in records:
        doc = r.get("doc") or {}
        if doc.get("dimension") in DIMENSIONS and int(doc.get("rotation", 0)) == 0:
            by_video[str(doc.get("stem"))][doc["dimension"]] = r

    def usable(rec: dict) -> bool:
        return not rec.get("error") if strict else is_valid(rec)

    complete = {v: d for v, d in by_video.items() if all(k in d and usable(d[k]) for k in DIMENSIONS)}
    n = len(complete)
    right = {v: {k: is_correct(d[k]) for k in DIMENSIONS} for v, d in complete.items()}
    hits = Counter(sum(r.values()) for r in right.values())
    out: dict[str, Any] = {
        "n_videos": n,
        "n_videos_seen": len(by_video),
        "n_videos_excluded": len(by_video) - n,
        "histogram_correct_of_3": {str(k): hits.get(k, 0) for k in range(4)},
    }
    for name, k in (("at_least_1", 1), ("at_least_2", 2), ("all_3", 3)):
        count = sum(c for h, c in hits.items() if h >= k)
        out[name] = {"value": _rate(count, n), "count": count, "n": n}
    for a, b in combinations(DIMENSIONS, 2):
        count = sum(1 for r in right.values() if r[a] and r[b])
        out[f"{a}+{b}"] = {"value": _rate(count, n), "count": count, "n": n}
    return out


def error_sources(records: list[dict], key: str, names: list[str]) -> dict[str, Any]:
    """Among valid wrong answers: how often each distractor (`key` = chosen_kind or chosen_dimension) was
    chosen, as a share of the errors and of all valid items (the public analyses' two denominators)."""
    valid = [r for r in records if is_valid(r)]
    wrong = [r for r in valid if not is_correct(r)]
    counts = Counter((_parsed(r).get("extra") or {}).get(key) for r in wrong)
    table = {
        name: {
            "count": counts.get(name, 0),
            "share_of_errors": _rate(counts.get(name, 0), len(wrong)),
            "share_of_items": _rate(counts.get(name, 0), len(valid)),
        }
        for name in names
    }
    return {"n_errors": len(wrong), "n_valid_items": len(valid), "chosen": table}


STRICT_NOTE = (
    "joint accuracy with invalid answers counted wrong, over videos whose S, A and P samples were all "
    "scored (the public `joint` leaves out every video with an invalid answer)"
)
SPAN_NOTE = (
    "visible span (public subset/eval_boundary_k.py): under K, BEGINNING shows the last K and END the "
    "first K of their bin-centred frames (16 by default); candidates always show all of theirs; Full shows "
    "every sampled context frame (= tempcloze_hard). The task's other tables and metrics pool every "
    "condition, except `joint`, computed on Full (or the first condition run)"
)


def _frames_shown(records: list[dict]) -> dict[str, dict[str, int]]:
    """How many frames each kind of clip actually got (from the samples' media log): a histogram."""
    shown: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        for m in r.get("media") or []:
            label = str(m.get("label") or "")
            kind = "candidates" if label.startswith("[Candidate") else label
            shown[kind][str(len(m.get("indices") or []))] += 1
    return {k: dict(sorted(v.items(), key=lambda kv: int(kv[0]))) for k, v in sorted(shown.items())}


def _span_order(name: str) -> tuple[int, int]:
    return (1, 0) if name == FULL else (0, int(name[1:]))


def visible_span_table(records: list[dict]) -> dict[str, Any]:
    """Accuracy per visible-span condition, overall and per dimension (the public script's summary), with
    counts and the frames every clip was shown."""
    by_span: dict[str, list[dict]] = defaultdict(list)
    ks: dict[str, Any] = {}
    for r in records:
        doc = r.get("doc") or {}
        name = str(doc.get("span", FULL))
        by_span[name].append(r)
        ks[name] = doc.get("context_frames")
    conditions = sorted(by_span, key=_span_order)
    table: dict[str, Any] = {}
    for name in conditions:
        rows = by_span[name]
        per_dim = {
            d: accuracy_cell([r for r in rows if (r.get("doc") or {}).get("dimension") == d])
            for d in DIMENSIONS
            if any((r.get("doc") or {}).get("dimension") == d for r in rows)
        }
        table[name] = {
            "context_frames": ks[name],
            "overall": accuracy_cell(rows),
            "per_dimension": per_dim,
            "mean_over_dimensions": mean_of_cells([c["accuracy"] for c in per_dim.values()]),
            "frames_shown": _frames_shown(rows),
        }
    return {"note": SPAN_NOTE, "conditions": conditions, "by_condition": table}


def canonical_records(records: list[dict]) -> list[dict]:
    """Records whose doc dimension is the plugin's key ('C' read as 'P'); others are returned as they are."""
    out = []
    for r in records:
        doc = r.get("doc") or {}
        dim = canonical_dimension(doc.get("dimension"))
        out.append(r if dim == doc.get("dimension") else {**r, "doc": {**doc, "dimension": dim}})
    return out


def dimension_cells(records: list[dict]) -> dict[str, Any]:
    """Per-dimension accuracy cells, micro overall and the mean over the dimensions present."""
    per_dim = {d: [r for r in records if (r.get("doc") or {}).get("dimension") == d] for d in DIMENSIONS}
    present = [d for d in DIMENSIONS if per_dim[d]]
    cells = {d: {"name": DIMENSION_NAMES[d], **accuracy_cell(per_dim[d])} for d in present}
    means = {key: mean_of_cells([cells[d][key] for d in present]) for key in ("accuracy", "accuracy_strict")}
    return {
        "per_dimension": cells,
        "overall": accuracy_cell([r for d in present for r in per_dim[d]]),
        "mean_over_dimensions": {**means, "n_dimensions": len(present)},
    }


ATTEMPTS_NOTE = (
    "replies read per request, the first parsable counts: 1 = one request (the harness's default), "
    "3 = the public evaluation's retry protocol (option `attempts`, e.g. task tempcloze_all_retry3)"
)

SOURCE_NOTE = (
    "per dataset source (the paper's Appendix E): accuracy per dimension and their mean, and joint "
    "per-video accuracy over the source's videos whose S, A and P answers are all valid"
)


def source_table(records: list[dict]) -> dict[str, Any]:
    """Appendix E: per source, the dimension accuracies, their mean and the joint table (base order,
    full span)."""
    by_source: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        src = (r.get("doc") or {}).get("source")
        if src is not None and (r.get("doc") or {}).get("dimension") in DIMENSIONS:
            by_source[str(src)].append(r)
    out: dict[str, Any] = {}
    for src in sorted(by_source):
        rows = by_source[src]
        out[src] = {**dimension_cells(rows), "joint": joint_table(_base_span(rows))}
    return {"note": SOURCE_NOTE, "sources": sorted(by_source), "by_source": out}


def _base_span(records: list[dict]) -> list[dict]:
    spans = sorted({str((r.get("doc") or {}).get("span", FULL)) for r in records}, key=_span_order)
    if not spans:
        return []
    base = FULL if FULL in spans else spans[0]
    return [r for r in records if str((r.get("doc") or {}).get("span", FULL)) == base]


def aggregate(records: list[dict], task: Task) -> dict[str, Any]:
    """The aggregate hook (tables for results.json)."""
    records = canonical_records(records)
    via = Counter((_parsed(r).get("extra") or {}).get("via") for r in records if is_valid(r))
    tables: dict[str, Any] = {
        "headline": {"metric": "accuracy", "note": HEADLINE_NOTE},
        "counts": {
            **accuracy_cell(records),
            "parsed_via": dict(sorted((k or "?", v) for k, v in via.items())),
        },
        "chance": chance_levels(),
    }
    docs = [r.get("doc") or {} for r in records]
    mixed = [r for r, d in zip(records, docs, strict=True) if d.get("dimension") == "mixed"]
    if mixed:
        tables["mixed"] = {
            **accuracy_cell(mixed),
            "error_sources_by_dimension": error_sources(mixed, "chosen_dimension", list(DIMENSIONS)),
            "error_sources_by_kind": error_sources(
                mixed, "chosen_kind", [kind_of(c) for d in DIMENSIONS for c in DISTRACTORS[d]]
            ),
        }
    per_dim = {
        d: [r for r, doc in zip(records, docs, strict=True) if doc.get("dimension") == d] for d in DIMENSIONS
    }
    present = [d for d in DIMENSIONS if per_dim[d]]
    if present:
        dim_records = [r for d in present for r in per_dim[d]]
        tables.update(dimension_cells(dim_records))
        tables["error_sources"] = {
            d: error_sources(per_dim[d], "chosen_kind", [kind_of(c) for c in DISTRACTORS[d]]) for d in present
        }
        if len(present) == len(DIMENSIONS):
            tables["joint"] = joint_table(_base_span(dim_records))
            tables["joint_strict"] = {
                **joint_table(_base_span(dim_records), strict=True),
                "note": STRICT_NOTE,
            }
        if any(d.get("source") is not None for d in docs):
            tables["by_source"] = source_table(dim_records)
    if len({int(d.get("rotation", 0)) for d in docs}) > 1:
        tables["reordering"] = reordering_table(records)
    if any(d.get("context_frames") is not None for d in docs):
        tables["visible_span"] = visible_span_table(records)
    if any(int(d.get("n_samples", 1)) > 1 for d in docs):
        tables["pass_at_k"] = pass_at_k_table(records)
    tables["frames_per_clip"] = getattr(task.config.frames, "count", None) if task is not None else None
    attempts = sorted({int(d.get("attempts", 1)) for d in docs})
    tables["protocol"] = {
        "attempts": attempts[-1] if attempts else 1,
        "note": ATTEMPTS_NOTE,
        "answered_at_attempt": dict(
            sorted(
                Counter(
                    str((_parsed(r).get("extra") or {}).get("attempt", 1)) for r in records if is_valid(r)
                ).items()
            )
        ),
    }
    return tables
