"""CycliST report sections: the paper's Tables 4-12 and Fig. 8 from the tables the task's aggregate hook
writes into results.json (tasks/cyclist/aggregate.py), models as rows.

Per-tier VQA tables come from the tasks `cyclist_l1` .. `cyclist_l5` (task_results[task]["tables"]), caption
tables from `cyclist_caption_l1` .. `_l5`. Cells carry the hook's paper chance level (`chance`: a uniform
guess over each question's own answers, averaged over the questions evaluated; shown once, in the column
header) and, when the samples file is present, a clustered bootstrap CI over the same samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from harness.report import (
    Cell,
    Figure,
    ReportSection,
    Table,
    ci_from_samples,
    field_equals,
    plots,
    task_result,
)

TIER_NAMES = {"L1": "Unicycle", "L2": "Uni. clut.", "L3": "Bicycle", "L4": "Tricycle", "L5": "Nightrider"}
CYCLE_TIERS = ("L1", "L3", "L4")  # one, two, three cyclic objects at the same clutter (Tables 4, 8-12)
ALL_TIERS = ("L1", "L3", "L4", "L2", "L5")  # the paper's column order in Tables 6 and 7
CATEGORIES = (("query", "attributes"), ("comp", "compare"), ("rel", "relate"))
QUANTIFIERS = (("existential", "∃"), ("universal", "∀"))
MAE_BANDS = {
    "numeric_counting": (1.0, 0.0),
    "numeric_occurrence": (1.0, 0.0),
    "numeric_periodicity": (100.0, 0.0),
}


def vqa_task(tier: str) -> str:
    return f"cyclist_{tier.lower()}"


def caption_task(tier: str) -> str:
    return f"cyclist_caption_{tier.lower()}"


def _tables(run: dict, task: str) -> Optional[dict]:
    tables = (task_result(run, task) or {}).get("tables")
    return tables if isinstance(tables, dict) else None


def _family_cell(run: dict, tier: str, family: str, metric: str = "accuracy") -> Cell:
    """A family's accuracy (or MAE) on a tier, with its chance band and a CI from the samples."""
    task = vqa_task(tier)
    fam = ((_tables(run, task) or {}).get("families") or {}).get(family)
    if not fam:
        return Cell(None)
    ci = ci_from_samples(
        run, task, "accuracy" if metric == "accuracy" else "abs_error", field_equals("family", family)
    )
    if metric == "accuracy":
        return Cell(
            fam.get("accuracy"), ci, fam.get("n_scored", fam.get("n")), chance=fam.get("chance"), best=1.0
        )
    worst, best = MAE_BANDS.get(family, (1.0, 0.0))
    return Cell(fam.get("mae"), ci, fam.get("n_mae"), chance=worst, best=best, fmt="num", show_chance=False)


def _table4(runs: Sequence[dict]) -> list[Table]:
    out = []
    for q, sym in QUANTIFIERS:
        cols = [f"{TIER_NAMES[t]} {c}" for t in CYCLE_TIERS for c, _ in CATEGORIES]
        table = Table(
            f"Table 4 ({sym}): temporal descriptive accuracy (%)",
            cols,
            note="query / comp(arison) / rel(ational) yes-no questions; chance in the headers.",
            headline=True,
        )
        for r in runs:
            table.add_row(
                r["_label"],
                [_family_cell(r, t, f"descriptive_{q}_{s}") for t in CYCLE_TIERS for _, s in CATEGORIES],
            )
        out.append(table)
    return out


def _table5(runs: Sequence[dict]) -> list[Table]:
    cols = [f"{sym} {c}" for _, sym in QUANTIFIERS for c, _ in CATEGORIES]
    left = Table(
        "Table 5 (left): Unicycle-Cluttered minus Unicycle (points)",
        cols,
        note="accuracy change from L1 to L2 in percentage points; band -10 to +10.",
    )
    right = Table("Table 5 (right): Nightrider accuracy (%)", cols, note="L5; chance in the headers.")
    for r in runs:
        deltas = []
        for q, _ in QUANTIFIERS:
            for _, s in CATEGORIES:
                fam = f"descriptive_{q}_{s}"
                a = _family_cell(r, "L1", fam).number()
                b = _family_cell(r, "L2", fam).number()
                deltas.append(
                    Cell(
                        None if a is None or b is None else b - a,
                        chance=0.0,
                        best=0.10,
                        fmt="delta_pct",
                        show_chance=False,
                    )
                )
        left.add_row(r["_label"], deltas)
        right.add_row(
            r["_label"],
            [_family_cell(r, "L5", f"descriptive_{q}_{s}") for q, _ in QUANTIFIERS for _, s in CATEGORIES],
        )
    return [left, right]


def _per_tier_table(runs: Sequence[dict], title: str, parts: Sequence[tuple[str, str]], note: str) -> Table:
    cols = [f"{label} {TIER_NAMES[t]}" for label, _ in parts for t in ALL_TIERS]
    table = Table(title, cols, note=note)
    for r in runs:
        table.add_row(r["_label"], [_family_cell(r, t, fam) for _, fam in parts for t in ALL_TIERS])
    return table


def _numeric_table(runs: Sequence[dict], title: str, family: str, with_accuracy: bool, note: str) -> Table:
    cols = [f"Acc {TIER_NAMES[t]}" for t in CYCLE_TIERS] if with_accuracy else []
    cols += [f"MAE {TIER_NAMES[t]}" for t in CYCLE_TIERS]
    table = Table(title, cols, note=note)
    for r in runs:
        cells = [_family_cell(r, t, family) for t in CYCLE_TIERS] if with_accuracy else []
        cells += [_family_cell(r, t, family, "mae") for t in CYCLE_TIERS]
        table.add_row(r["_label"], cells)
    return table


def _caption_tables(runs: Sequence[dict]) -> list[Table]:
    out = []
    for key, title in (
        ("table11_objects", "Table 11: scene captioning, objects (%)"),
        ("table12_cycles", "Table 12: cycle captioning (%)"),
    ):
        level = "obj" if key == "table11_objects" else "cycle"
        cols = [f"{TIER_NAMES[t]} {m}" for t in CYCLE_TIERS for m in ("Pr", "Re", "F1")]
        table = Table(
            title,
            cols,
            note="mean per-video precision, recall and F1; band 0 to 100 %.",
            headline=key == "table11_objects",
        )
        for r in runs:
            cells = []
            for t in CYCLE_TIERS:
                cell = (_tables(r, caption_task(t)) or {}).get(key) or {}
                for name in ("precision", "recall", "f1"):
                    ci = ci_from_samples(r, caption_task(t), f"{level}_{name}")
                    cells.append(
                        Cell(
                            cell.get(name),
                            ci if cell else None,
                            cell.get("n"),
                            chance=0.0,
                            best=1.0,
                            show_chance=False,
                        )
                    )
            table.add_row(r["_label"], cells)
        out.append(table)
    return out


def scene_representative_accuracy(run: dict, tier: str) -> Optional[float]:
    """Accuracy over the tier's scene-representative families (all but descriptive_*), sample-weighted."""
    fams = (_tables(run, vqa_task(tier)) or {}).get("families") or {}
    pairs = [
        (c["accuracy"], c.get("n_scored", c.get("n", 0)))
        for f, c in fams.items()
        if not f.startswith("descriptive_") and c.get("accuracy") is not None
    ]
    total = sum(n for _, n in pairs)
    return sum(a * n for a, n in pairs) / total if total else None


def _figure8(runs: Sequence[dict]) -> Optional[Figure]:
    cycles: dict[str, list[Optional[float]]] = {}
    light: dict[str, list[Optional[float]]] = {}
    for r in runs:
        per = [scene_representative_accuracy(r, t) for t in CYCLE_TIERS]
        cycles[r["_label"]] = per
        known = [v for v in per if v is not None]
        light[r["_label"]] = [
            sum(known) / len(known) if known else None,
            scene_representative_accuracy(r, "L5"),
        ]
    if not any(v is not None for vals in cycles.values() for v in vals):
        return None
    png = plots.tier_lines(
        [
            ("Object cycles (L1 → L3 → L4)", ["Uni (1)", "Bi (2)", "Tri (3)"], cycles),
            ("Light cycles", ["no light (L1, L3, L4)", "light (L5)"], light),
        ],
        "scene-representative accuracy (%)",
    )
    return Figure(
        "fig8_tiers.png",
        "Fig. 8: scene-representative accuracy by tier; dashed: OLS fit over all "
        "models (the average decline).",
        png,
    )


def _has_cyclist(run: dict) -> bool:
    return any(_tables(run, vqa_task(t)) or _tables(run, caption_task(t)) for t in TIER_NAMES)


def _descriptive_section(vqa: list[dict[str, Any]]) -> ReportSection:
    """Temporal descriptive VQA: Tables 4 and 5."""
    return ReportSection(
        "CycliST: temporal descriptive VQA", "", [*_table4(vqa), *_table5(vqa)], level=3, key="cyclist-descriptive"
    )


def _representative_section(vqa: list[dict[str, Any]]) -> ReportSection:
    """Scene representative VQA: Tables 6-10 (orbits, transitions, counting, completed cycles, periods), Fig. 8."""
    tables = [
        _per_tier_table(
            vqa,
            "Table 6: orbits (%)",
            [("Direction", "cycle_representative_clockwise"), ("Center", "cycle_representative_orbit")],
            "chance in the headers: a uniform guess over each question's answers (2 directions; 8 colours "
            "or 2 sizes for the center), averaged over the questions evaluated.",
        ),
        _per_tier_table(
            vqa,
            "Table 7: cyclic transitions (%)",
            [("Transition", "cycle_representative_transition")],
            "initial / next attribute value of changing objects; chance in the headers (uniform over "
            "each question's colours or sizes, averaged over the questions evaluated).",
        ),
        _numeric_table(
            vqa,
            "Table 8: counting object cycles",
            "numeric_counting",
            True,
            "accuracy (%) and MAE in cycles; MAE band from 1 to 0.",
        ),
        _numeric_table(
            vqa, "Table 9: completed cycles", "numeric_occurrence", True, "accuracy (%) and MAE in cycles."
        ),
        _numeric_table(
            vqa, "Table 10: frames per cycle (MAE)", "numeric_periodicity", False, "MAE in frames; band from 100 to 0."
        ),
    ]
    fig = _figure8(vqa)
    return ReportSection(
        "CycliST: scene representative VQA", "", tables, [fig] if fig else [], level=3, key="cyclist-representative"
    )


def cyclist_sections(runs: list[dict[str, Any]]) -> list[ReportSection]:
    """The CycliST part of the report (empty when no run evaluated a CycliST tier task)."""
    mine = [r for r in runs if _has_cyclist(r)]
    if not mine:
        return []
    vqa = [r for r in mine if any(_tables(r, vqa_task(t)) for t in TIER_NAMES)]
    cap = [r for r in mine if any(_tables(r, caption_task(t)) for t in TIER_NAMES)]
    sections = [
        ReportSection(
            "CycliST",
            "Paper tables from the tier tasks `cyclist_l1` .. `cyclist_l5` and "
            "`cyclist_caption_l*`; empty cells: tier or family not evaluated. Shading runs from "
            "the question type's chance level to 100 % (MAE: from the paper's bad level to 0).",
            level=2,
            key="cyclist",
        )
    ]
    if vqa:
        sections += [_descriptive_section(vqa), _representative_section(vqa)]
    if cap:
        sections.append(
            ReportSection(
                "CycliST: scene understanding", "", _caption_tables(cap), level=3, key="cyclist-captions"
            )
        )
    return sections
