"""The paper's result tables from one tier's per-sample records (aggregate hook), and Table 5 across tiers.

Every cell carries its sample count `n` and, for accuracies, two chance levels: `chance` (the paper's: a
uniform guess over the question type's own answers: 50 % yes/no, 1/8 colours, 1/2 sizes, 1/|observed
values| for integers) and `chance_random` (what the `random` baseline scores on this task: each answer of
the task's declared answer space run through the same parser and scorer, averaged; exact, not sampled).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Optional

from harness.api import Response
from harness_tasks.cyclist.families import FAMILIES
from harness_tasks.cyclist.parsing import judge_case, parse
from harness_tasks.cyclist.request import answer_space, doc_domain
from harness_tasks.cyclist.scoring import score
from harness_tasks.cyclist.vocab import TIERS


def _mean(values: list[float]) -> Optional[float]:
    return round(sum(values) / len(values), 6) if values else None


def _scored(records: list[dict]) -> list[dict]:
    return [r for r in records if not r.get("error")]


class ChanceModel:
    """Expected accuracy of uniform guessing, per doc, by the paper's rule and for the `random` baseline."""

    def __init__(self, docs: list[dict]):
        self.spaces = answer_space(docs) if docs else {}
        self.integers: dict[str, set] = defaultdict(set)
        for d in docs:
            if judge_case(d) == "number":
                self.integers[d.get("family", "")].add(int(d["target"]))
        self._cache: dict[tuple, float] = {}

    def paper(self, doc: dict) -> float:
        if judge_case(doc) == "number":
            return 1.0 / max(1, len(self.integers[doc.get("family", "")]))
        return 1.0 / max(1, len(doc_domain(doc)))

    def random(self, doc: dict) -> float:
        key = (judge_case(doc), doc.get("domain"), doc.get("family"), str(doc.get("target")))
        if key not in self._cache:
            space = self.spaces.get(str(doc.get("family", "")), [])
            hits = sum(
                score(parse(Response(text=s), doc), doc["target"], doc).get("accuracy", 0.0) for s in space
            )
            self._cache[key] = hits / len(space) if space else 0.0
        return self._cache[key]


def _cell(records: list[dict], chance: Optional[ChanceModel]) -> dict[str, Any]:
    scored = _scored(records)
    acc = [r["scores"]["accuracy"] for r in scored if r["scores"].get("accuracy") is not None]
    errs = [r["scores"]["abs_error"] for r in scored if r["scores"].get("abs_error") is not None]
    cell: dict[str, Any] = {
        "n": len(records),
        "n_scored": len(scored),
        "n_errors": len(records) - len(scored),
        "n_invalid": sum(1 for r in scored if not (r.get("parsed") or {}).get("valid", True)),
        "n_indefinite": sum(1 for r in scored if r["scores"].get("indefinite")),
        "accuracy": _mean(acc),
    }
    if any(r["doc"].get("answer_kind") == "integer" for r in records):
        cell["mae"] = _mean(errs)
        cell["n_mae"] = len(errs)
    if chance is not None and records:
        cell["chance"] = _mean([chance.paper(r["doc"]) for r in records])
        cell["chance_random"] = _mean([chance.random(r["doc"]) for r in records])
    return cell


def _by(records: list[dict], field: str) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        groups[str(r["doc"].get(field))].append(r)
    return groups


def tier_of(records: list[dict], task: Any) -> str:
    """The tier the records belong to (the rows' tier field, else the task's dataset option)."""
    tiers = Counter(str(r["doc"].get("tier") or "") for r in records)
    tier = tiers.most_common(1)[0][0] if tiers else ""
    return tier or str(task.config.dataset.options.get("tier", ""))


def vqa_tables(records: list[dict], task: Any) -> dict[str, Any]:
    """Per-family figures and Tables 4, 6-10 for one tier's VQA records."""
    chance = ChanceModel([r["doc"] for r in records])
    tier = tier_of(records, task)
    fam = _by(records, "family")
    families = {f: _cell(fam[f], chance) for f in FAMILIES if f in fam}
    table4: dict[str, dict[str, Any]] = {}
    for q in ("existential", "universal"):
        for c, suffix in (("query", "attributes"), ("compare", "compare"), ("relate", "relate")):
            f = f"descriptive_{q}_{suffix}"
            if f in fam:
                table4.setdefault(q, {})[c] = families[f]

    def pick(f: str) -> Optional[dict]:
        return families.get(f)

    return {
        "tier": tier,
        "tier_name": TIERS.get(tier, ("", tier))[1],
        "overall": _cell(records, chance),
        "families": families,
        "table4_temporal_descriptive": table4,
        "table6_orbit": {
            "direction": pick("cycle_representative_clockwise"),
            "center": pick("cycle_representative_orbit"),
        },
        "table7_transition": pick("cycle_representative_transition"),
        "table8_counting": pick("numeric_counting"),
        "table9_completed_cycles": pick("numeric_occurrence"),
        "table10_period": pick("numeric_periodicity"),
    }


def caption_tables(records: list[dict], task: Any) -> dict[str, Any]:
    """Tables 11 (object level) and 12 (cycle level): mean per-video P/R/F1 and pooled counts."""
    scored = _scored(records)
    out: dict[str, Any] = {"tier": tier_of(records, task), "n": len(records), "n_scored": len(scored)}
    for level, table in (("obj", "table11_objects"), ("cycle", "table12_cycles")):
        cell = {"n": len(scored)}
        for k in ("precision", "recall", "f1"):
            cell[k] = _mean(
                [r["scores"][f"{level}_{k}"] for r in scored if r["scores"].get(f"{level}_{k}") is not None]
            )
        out[table] = cell
    return out


def aggregate(records: list[dict], task: Any) -> dict[str, Any]:
    """Aggregate hook: the paper's tables for this task's records (see the module docstring)."""
    if records and judge_case(records[0]["doc"]) == "objects":
        return caption_tables(records, task)
    return vqa_tables(records, task)


def table5(tier_tables: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Table 5: clutter (L2) and Nightrider (L5) accuracy deltas against Unicycle (L1), in points, per
    quantifier x question type; `tier_tables` maps tier -> that tier's aggregate output. Absent tiers are
    left out; cells carry both tiers' sample counts."""
    base = (tier_tables.get("L1") or {}).get("table4_temporal_descriptive") or {}
    out: dict[str, Any] = {}
    for tier, label in (("L2", "unicycle_cluttered_minus_unicycle"), ("L5", "nightrider_minus_unicycle")):
        other = (tier_tables.get(tier) or {}).get("table4_temporal_descriptive")
        if not base or not other:
            continue
        table: dict[str, Any] = {}
        for q, cats in base.items():
            for c, cell in cats.items():
                o = (other.get(q) or {}).get(c)
                if not o or cell.get("accuracy") is None or o.get("accuracy") is None:
                    continue
                table.setdefault(q, {})[c] = {
                    "delta_points": round(100 * (o["accuracy"] - cell["accuracy"]), 2),
                    "accuracy": o["accuracy"],
                    "accuracy_unicycle": cell["accuracy"],
                    "n": o["n"],
                    "n_unicycle": cell["n"],
                }
        out[label] = table
    return out


def group_tables(task_results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Group aggregate hook of `cyclist`: Table 5 from the member tiers' tables (cyclist_l1 -> L1, ...)."""
    tier_tables = {}
    for name, res in task_results.items():
        if len(name) == len("cyclist_l1") and name.startswith("cyclist_l") and name[-1].isdigit():
            tier_tables[f"L{name[-1]}"] = res.get("tables") or {}
    return {"table5": table5(tier_tables)}
