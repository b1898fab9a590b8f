"""RVTBench report sections: the paper's Tables 2-4 (every metric per reasoning category x level, plus
overall), models as rows, and J&F / cIoU by level plots, from the task's aggregate tables
(results[task]["tables"]["by_category_level"], tasks/rvtbench/aggregate.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.report import Cell, Figure, ReportSection, Table, plots

CATEGORIES = ("semantic", "spatial", "temporal")
LEVELS = ("L1", "L2", "L3", "L4")
METRICS = {
    "segmentation": ("J", "F", "J&F"),
    "grounding": ("cIoU", "gIoU", "AP@50"),
    "text": ("accuracy", "BLEU-4", "ROUGE-L", "BERTScore", "CIDEr-D"),
}
PLOTTED = {"J&F": "Table 2 metric", "cIoU": "Table 3 metric"}
# Metrics not on a 0-1 scale, printed as they are (CIDEr-D: pycocoevalcap's x10 scale, 10 = a perfect match
# of every n-gram; the paper's "CIDEr (%)" column is this number, not a percentage).
OWN_SCALE = {"CIDEr-D": 10.0}


def _tables(run: dict, task: str) -> dict:
    tables = (((run.get("results") or {}).get(task) or {}).get("tables")) or {}
    return tables if isinstance(tables, dict) else {}


def _cells(run: dict, task: str) -> dict:
    return _tables(run, task).get("by_category_level") or {}


def rvtbench_tasks(runs: Sequence[dict]) -> list[str]:
    """RVTBench tasks (by name, with the category x level table) in the runs, sorted."""
    return sorted(
        {t for r in runs for t in (r.get("results") or {}) if t.startswith("rvtbench") and _cells(r, t)}
    )


def _metrics_of(runs: Sequence[dict], task: str) -> list[str]:
    seen = {k for r in runs for cell in _cells(r, task).values() for k in cell}
    for names in METRICS.values():
        if seen & set(names):
            return [m for m in names if m in seen]
    return []


def metric_table(runs: Sequence[dict], task: str, metric: str) -> Table:
    """One metric: overall, then category x level columns (the paper's layout)."""
    keys = ["overall"] + [f"{c}|{lv}" for c in CATEGORIES for lv in LEVELS]
    cols = ["Overall"] + [f"{c.capitalize()} {lv}" for c in CATEGORIES for lv in LEVELS]
    own = OWN_SCALE.get(metric)
    table = Table(
        f"{task}: {metric}" + ("" if own else " (%)"),
        cols,
        note=(
            f"{metric} on its own scale (pycocoevalcap's, band 0 to {own:g}, not a percentage)"
            if own
            else "band from 0 to 100 %"
        )
        + "; empty: no sample in the cell or the metric was not computed (see the task's results).",
    )
    for r in runs:
        cells = _cells(r, task)
        table.add_row(
            r["_label"],
            [
                Cell(
                    (cells.get(k) or {}).get(metric),
                    None,
                    (cells.get(k) or {}).get("n_samples"),
                    chance=0.0,
                    best=own or 1.0,
                    fmt="num" if own else "pct",
                    show_chance=False,
                )
                for k in keys
            ],
        )
    return table


def level_figure(runs: Sequence[dict], task: str, metric: str) -> Figure:
    """Metric by level, one panel per reasoning category, a line per model and the OLS trend."""
    panels = []
    for c in CATEGORIES:
        series = {
            r["_label"]: [(_cells(r, task).get(f"{c}|{lv}") or {}).get(metric) for lv in LEVELS] for r in runs
        }
        panels.append((c.capitalize(), list(LEVELS), series))
    png = plots.tier_lines(panels, f"{metric} (%)")
    return Figure(
        f"{task}_{metric.replace('&', 'and')}_by_level.png",
        f"{metric} by level per reasoning category; dashed: OLS trend over all models.",
        png,
    )


def rvtbench_sections(runs: list[dict[str, Any]]) -> list[ReportSection]:
    """The RVTBench part of the report (empty when no run evaluated an RVTBench task)."""
    tasks = rvtbench_tasks(runs)
    if not tasks:
        return []
    out = [
        ReportSection(
            "RVTBench",
            "Tables 2-4 layout: each metric per reasoning category and level "
            "(a sample with several categories counts in each).",
            level=2,
            key="rvtbench",
        )
    ]
    for task in tasks:
        mine = [r for r in runs if _cells(r, task)]
        metrics = _metrics_of(mine, task)
        figures = [level_figure(mine, task, m) for m in metrics if m in PLOTTED]
        tokenizers = sorted({t for r in mine if (t := _tables(r, task).get("tokenizer"))})
        out.append(
            ReportSection(
                f"RVTBench: {task}",
                f"Captions PTB-tokenized by {' / '.join(tokenizers)}." if tokenizers else "",
                [metric_table(mine, task, m) for m in metrics],
                figures,
                level=3,
                key=f"rvtbench-{task}",
            )
        )
    return out
