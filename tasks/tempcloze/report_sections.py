"""TempCloze report sections: per-dimension accuracy, joint per-video accuracy, error sources (per
dimension and, for Mixed, across dimensions), candidate reordering, visible span, pass@k and the
per-source table (Appendix E), models as rows, with bars.

Everything is read from the tables the task's aggregate hook writes (tasks/tempcloze/aggregate.py);
chance levels are the hook's (uniform guess over four candidates) and CIs come from the samples files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from harness.report import (
    Cell,
    Figure,
    ReportSection,
    Table,
    all_groups,
    all_tasks,
    ci_from_samples,
    group_result,
    plots,
    task_result,
)

DIMS = (("S", "Semantic"), ("A", "Alignment"), ("P", "Progression"))
JOINT = (
    ("at_least_1", "≥1/3", "at_least_1"),
    ("at_least_2", "≥2/3", "at_least_2"),
    ("all_3", "3/3", "all_3"),
    ("S+A", "S+A", "pair"),
    ("S+P", "S+P", "pair"),
    ("A+P", "A+P", "pair"),
)


def _tables(run: dict, task: str) -> dict:
    tables = (task_result(run, task) or {}).get("tables") or {}
    return tables if isinstance(tables, dict) else {}


def _group_tables(run: dict, group: str) -> dict:
    tables = (group_result(run, group) or {}).get("tables") or {}
    return tables if isinstance(tables, dict) else {}


def tempcloze_tasks(runs: Sequence[dict]) -> list[str]:
    """TempCloze tasks in the runs (by name and by the hook's tables), sorted."""
    return sorted(
        {t for t in all_tasks(runs) if t.startswith("tempcloze") and any("counts" in _tables(r, t) for r in runs)}
    )


def _dimension_is(dim: str):
    """A samples predicate: the record's dimension is `dim` (the public key 'C' counts as 'P')."""
    keys = {dim, "C"} if dim == "P" else {dim}
    return lambda r: str((r.get("doc") or {}).get("dimension")) in keys


def _chance(tables: dict, key: str = "accuracy") -> Optional[float]:
    return (tables.get("chance") or {}).get(key)


def dimension_table(runs: Sequence[dict], task: str) -> Table:
    """Semantic, Alignment, Progression, overall (micro) and mean over dimensions, plus strict overall."""
    cols = [name for _, name in DIMS] + ["Overall", "Mean", "Overall (invalid = wrong)"]
    table = Table(
        f"{task}: accuracy by dimension (%)",
        cols,
        note="headline: invalid answers excluded (as the public analysis); last column counts them "
        "as wrong. Chance (in the headers): a uniform guess over the four candidates.",
        headline=True,
    )
    for r in runs:
        tb = _tables(r, task)
        per = tb.get("per_dimension") or {}
        chance = _chance(tb)
        cells = []
        for d, _ in DIMS:
            c = per.get(d)
            ci = ci_from_samples(r, task, "accuracy", _dimension_is(d)) if c else None
            cells.append(
                Cell(c.get("accuracy") if c else None, ci, c.get("n_valid") if c else None, chance=chance)
            )
        overall = tb.get("overall") or {}
        cells.append(
            Cell(
                overall.get("accuracy"),
                ci_from_samples(r, task, "accuracy") if overall else None,
                overall.get("n_valid"),
                chance=chance,
            )
        )
        cells.append(Cell((tb.get("mean_over_dimensions") or {}).get("accuracy"), chance=chance))
        cells.append(Cell(overall.get("accuracy_strict"), None, overall.get("n_items"), chance=chance))
        table.add_row(r["_label"], cells)
    return table


def joint_table(runs: Sequence[dict], task: str) -> Table:
    """Per-video joint accuracy over videos whose three answers are all valid."""
    table = Table(
        f"{task}: joint per-video accuracy (%)",
        [label for _, label, _ in JOINT],
        note="share of videos with at least k of S, A, P right, and with both of a pair right; "
        "chance from a uniform guess per dimension.",
    )
    for r in runs:
        tb = _tables(r, task)
        table.add_row(r["_label"], _joint_cells(tb.get("joint") or {}, tb))
    return table


def _joint_cells(joint: dict, tb: dict) -> list[Cell]:
    """The >=1, >=2, 3/3 and pair cells of a joint table, each with its n and chance level."""
    return [
        Cell(
            (joint.get(key) or {}).get("value"),
            None,
            (joint.get(key) or {}).get("n"),
            chance=_chance(tb, chance_key),
        )
        for key, _, chance_key in JOINT
    ]


def _kinds(runs: Sequence[dict], task: str, dim: str) -> list[str]:
    out: list[str] = []
    for r in runs:
        for k in ((_tables(r, task).get("error_sources") or {}).get(dim) or {}).get("chosen") or {}:
            if k not in out:
                out.append(k)
    return out


def error_table(runs: Sequence[dict], task: str) -> Table:
    """Which distractor was chosen when wrong, as a share of each dimension's errors."""
    cols, keys = [], []
    for d, name in DIMS:
        for k in _kinds(runs, task, d):
            cols.append(f"{name[:4]}. {k}")
            keys.append((d, k))
    table = Table(
        f"{task}: error sources (% of the dimension's wrong answers)",
        cols,
        note="valid wrong answers only; n = the dimension's error count.",
    )
    for r in runs:
        src = _tables(r, task).get("error_sources") or {}
        cells = []
        for d, k in keys:
            entry = src.get(d) or {}
            cell = (entry.get("chosen") or {}).get(k) or {}
            cells.append(Cell(cell.get("share_of_errors"), None, entry.get("n_errors"), chance=None))
        table.add_row(r["_label"], cells)
    return table


def mixed_tables(runs: Sequence[dict], task: str) -> list[Table]:
    """TempCloze-Mixed: accuracy and which dimension's distractor took the errors."""
    table = Table(
        f"{task}: Mixed accuracy and error shares (%)",
        ["accuracy", "accuracy (invalid = wrong)"] + [f"errors to {n}" for _, n in DIMS],
        note="one distractor per dimension; error shares over valid wrong answers.",
        headline=True,
    )
    for r in runs:
        tb = _tables(r, task)
        mixed = tb.get("mixed") or {}
        by_dim = mixed.get("error_sources_by_dimension") or {}
        chosen = by_dim.get("chosen") or {}
        table.add_row(
            r["_label"],
            [
                Cell(
                    mixed.get("accuracy"),
                    ci_from_samples(r, task, "accuracy"),
                    mixed.get("n_valid"),
                    chance=_chance(tb),
                ),
                Cell(mixed.get("accuracy_strict"), None, mixed.get("n_items"), chance=_chance(tb)),
                *[
                    Cell((chosen.get(d) or {}).get("share_of_errors"), None, by_dim.get("n_errors"))
                    for d, _ in DIMS
                ],
            ],
        )
    return [table]


def reordering_table(runs: Sequence[dict], task: str) -> Table:
    """Candidate reordering: accuracy per order, mean and std, clip and correctness flip rates."""
    orders: list[str] = []
    for r in runs:
        for o in (_tables(r, task).get("reordering") or {}).get("orders") or []:
            if o not in orders:
                orders.append(o)
    cols = [f"acc {o}" for o in orders] + ["mean", "range", "std", "CFR", "FR"]
    table = Table(
        f"{task}: candidate reordering (%)",
        cols,
        note="rK: base order shifted by K; range: max - min accuracy over the orders; CFR: clip flip rate, "
        "FR: correctness flip rate.",
    )
    for r in runs:
        tb = _tables(r, task)
        ov = ((tb.get("reordering") or {}).get("overall")) or {}
        by = ov.get("accuracy_by_order") or {}
        cells = [Cell(by.get(o), None, ov.get("n_items"), chance=_chance(tb)) for o in orders]
        cells += [
            Cell(ov.get("accuracy_mean"), chance=_chance(tb)),
            Cell(ov.get("accuracy_range")),
            Cell(ov.get("accuracy_std")),
            Cell(ov.get("clip_flip_rate")),
            Cell(ov.get("correctness_flip_rate")),
        ]
        table.add_row(r["_label"], cells)
    return table


def visible_span_table(runs: Sequence[dict], task: str) -> Table:
    """Visible span: accuracy per condition (K1 .. Full), one row per model and dimension plus Overall."""
    conds: list[str] = []
    for r in runs:
        for c in (_tables(r, task).get("visible_span") or {}).get("conditions") or []:
            if c not in conds:
                conds.append(c)
    table = Table(
        f"{task}: visible span, accuracy (%)",
        conds,
        note="K: BEGINNING shows its last K and END its first K of 16 frames; candidates 16; Full: all 16.",
    )
    for r in runs:
        tb = _tables(r, task)
        by = (tb.get("visible_span") or {}).get("by_condition") or {}
        for key, name in [*DIMS, ("overall", "Overall")]:
            cells = []
            for c in conds:
                row = by.get(c) or {}
                cell = row.get("overall") if key == "overall" else (row.get("per_dimension") or {}).get(key)
                cell = cell or {}
                cells.append(Cell(cell.get("accuracy"), None, cell.get("n_valid"), chance=_chance(tb)))
            table.add_row(f"{r['_label']} · {name}", cells)
    return table


def source_table(runs: Sequence[dict], task: str) -> Table:
    """Appendix E: per dataset source, S, A, P accuracy, their mean and the joint per-video accuracy."""
    cols = [name for _, name in DIMS] + ["Mean"] + [label for _, label, _ in JOINT]
    table = Table(
        f"{task}: statistics by source (%)",
        cols,
        note="one row per model and dataset source; joint: videos of the source with all three answers valid.",
    )
    for r in runs:
        tb = _tables(r, task)
        by = (tb.get("by_source") or {}).get("by_source") or {}
        for src, row in by.items():
            per = row.get("per_dimension") or {}
            cells = [
                Cell(
                    (per.get(d) or {}).get("accuracy"),
                    None,
                    (per.get(d) or {}).get("n_valid"),
                    chance=_chance(tb),
                )
                for d, _ in DIMS
            ]
            cells.append(Cell((row.get("mean_over_dimensions") or {}).get("accuracy"), chance=_chance(tb)))
            cells += _joint_cells(row.get("joint") or {}, tb)
            table.add_row(f"{r['_label']} · {src}", cells)
    return table


def pass_at_k_table(runs: Sequence[dict], task: str) -> Table:
    """pass@1..5 overall with their chance levels."""
    ks = [f"pass@{k}" for k in range(1, 6)]
    table = Table(
        f"{task}: test-time scaling, pass@k (%)",
        ks,
        note="mean over items with at least k valid samples; chance 1 - 0.75^k.",
    )
    for r in runs:
        pk = _tables(r, task).get("pass_at_k") or {}
        overall = pk.get("overall") or {}
        table.add_row(
            r["_label"],
            [
                Cell(
                    (overall.get(k) or {}).get("value"),
                    None,
                    (overall.get(k) or {}).get("n"),
                    chance=(pk.get("chance") or {}).get(k),
                )
                for k in ks
            ],
        )
    return table


def _dimension_bars(table: Table, task: str) -> Figure:
    cats = [name for _, name in DIMS] + ["Overall"]
    series = []
    for label, cells in table.rows:
        series.append((label, [c.number() for c in cells[:4]], [c.ci for c in cells[:4]]))
    chance = next((c.chance for _, cells in table.rows for c in cells if c.chance is not None), None)
    png = plots.bar_chart(
        cats, series, f"{task}: accuracy by dimension (95 % CI)", "accuracy (%)", chance=chance
    )
    return Figure(f"{task}_dimensions.png", "Accuracy per dimension; grey band: chance.", png)


def _error_bars(runs: Sequence[dict], task: str) -> Optional[Figure]:
    """One panel per dimension: a bar per model (with errors there), a segment per distractor kind."""
    panels = []
    for d, name in DIMS:
        mine = [r for r in runs if (_tables(r, task).get("error_sources") or {}).get(d, {}).get("n_errors")]
        if not mine:
            continue
        parts = {
            k: [
                (((_tables(r, task)["error_sources"][d].get("chosen") or {}).get(k)) or {}).get("share_of_errors")
                for r in mine
            ]
            for k in _kinds(runs, task, d)
        }
        panels.append((name, [r["_label"] for r in mine], parts))
    if not panels:
        return None
    png = plots.stacked_shares(panels, f"{task}: which distractor took the errors")
    return Figure(
        f"{task}_error_sources.png",
        "Error sources: share of each dimension's wrong answers going to each distractor kind.",
        png,
    )


def task_sections(runs: Sequence[dict], task: str) -> ReportSection:
    """One TempCloze task's tables and bars."""
    mine = [r for r in runs if _tables(r, task)]
    tables: list[Table] = []
    figures: list[Figure] = []
    if any(_tables(r, task).get("per_dimension") for r in mine):
        dims = dimension_table(mine, task)
        tables.append(dims)
        figures.append(_dimension_bars(dims, task))
    if any(_tables(r, task).get("joint") for r in mine):
        tables.append(joint_table(mine, task))
    if any(_tables(r, task).get("error_sources") for r in mine):
        tables.append(error_table(mine, task))
        fig = _error_bars(mine, task)
        if fig:
            figures.append(fig)
    if any(_tables(r, task).get("mixed") for r in mine):
        tables.extend(mixed_tables(mine, task))
    if any(_tables(r, task).get("reordering") for r in mine):
        tables.append(reordering_table(mine, task))
    if any(_tables(r, task).get("visible_span") for r in mine):
        tables.append(visible_span_table(mine, task))
    if any(_tables(r, task).get("pass_at_k") for r in mine):
        tables.append(pass_at_k_table(mine, task))
    if any(_tables(r, task).get("by_source") for r in mine):
        tables.append(source_table(mine, task))
    return ReportSection(f"TempCloze: {task}", "", tables, figures, level=3, key=f"tempcloze-{task}")


def frame_density_table(runs: Sequence[dict], group: str) -> Table:
    """The frame-density figure's numbers: one row per model and dimension, one column per frame count."""
    counts: list[str] = []
    for r in runs:
        fd = _group_tables(r, group).get("frame_density") or {}
        counts += [c for c in fd.get("counts") or [] if c not in counts]
    counts.sort(key=int)
    table = Table(
        f"{group}: accuracy by frames per clip (%)",
        [f"{c} frames" for c in counts],
        note="TempCloze-Hard at each frame count (public subset/eval_frames.py); invalid answers excluded.",
    )
    for r in runs:
        fd = _group_tables(r, group).get("frame_density") or {}
        by = fd.get("by_count") or {}
        if not by:
            continue
        for key, name in [*DIMS, ("overall", "Overall")]:
            cells = [
                Cell(((by.get(c) or {}).get(key) or {}).get("accuracy"), None,
                     ((by.get(c) or {}).get(key) or {}).get("n_valid"), chance=0.25)
                for c in counts
            ]  # fmt: skip
            table.add_row(f"{r['_label']} · {name}", cells)
    return table


def _density_groups(runs: Sequence[dict]) -> list[str]:
    return [g for g in all_groups(runs) if any("frame_density" in _group_tables(r, g) for r in runs)]


def tempcloze_sections(runs: list[dict[str, Any]]) -> list[ReportSection]:
    """The TempCloze part of the report (empty when no run evaluated a TempCloze task)."""
    tasks = tempcloze_tasks(runs)
    if not tasks:
        return []
    intro = ReportSection(
        "TempCloze",
        "Per-dimension, joint and error-source tables of each TempCloze task; "
        "shading runs from chance (uniform over four candidates) to 100 %.",
        level=2,
        key="tempcloze",
    )
    density = [
        ReportSection(
            f"TempCloze: {g}", "", [frame_density_table(runs, g)], [], level=3, key=f"tempcloze-{g}"
        )
        for g in _density_groups(runs)
    ]
    return [intro, *density, *(task_sections(runs, t) for t in tasks)]
