"""RVTBench report sections: the paper's Tables 2-4 (every metric per reasoning category x level, plus
overall), models as rows, and J&F / cIoU by level plots, from the task's aggregate tables
(task_results[task]["tables"]["by_category_level"], tasks/rvtbench/aggregate.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.report import Cell, Figure, ReportSection, Table, all_tasks, plots, task_result

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
    tables = (task_result(run, task) or {}).get("tables") or {}
    return tables if isinstance(tables, dict) else {}


def _cells(run: dict, task: str) -> dict:
    return _tables(run, task).get("by_category_level") or {}


def rvtbench_tasks(runs: Sequence[dict]) -> list[str]:
    """RVTBench tasks (by name, with the category x level table) in the runs, sorted."""
    return [t for t in all_tasks(runs) if t.startswith("rvtbench") and any(_cells(r, t) for r in runs)]


def _metrics_of(runs: Sequence[dict], task: str) -> list[str]:
    seen = {k for r in runs for cell in _cells(r, task).values() for k in cell}
    for names in METRICS.values():
        if seen & set(names):
            return [m for m in names if m in seen]
    return []


def metric_table(runs: Sequence[dict], task: str, metric: str, headline: bool = False) -> Table:
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
        headline=headline,
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


def _headline_metric(runs: Sequence[dict], task: str, metrics: Sequence[str]) -> str:
    """The table metric a run prints on the console: the task's headline where it is one, else the first."""
    head = next((h for r in runs if (h := (task_result(r, task) or {}).get("headline"))), None)
    return head if head in metrics else (metrics[0] if metrics else "")


def _why_empty(runs: Sequence[dict], task: str, metrics: Sequence[str]) -> list[str]:
    """Why a table may lack a model's numbers (samples that all failed, metrics not computed, no masks):
    one line per reason, naming the models it applies to."""
    reasons: dict[str, list[str]] = {}
    for r in runs:
        res = task_result(r, task) or {}
        overall = _cells(r, task).get("overall") or {}
        found = []
        if res.get("n_samples") and res.get("n_errors") == res.get("n_samples"):
            kinds = ", ".join(f"{k} {v}" for k, v in sorted((res.get("errors") or {}).items()))
            found.append(f"all {res['n_samples']} samples are errors ({kinds}); see Task {task}")
        found += [f"{m} {overall[f'{m}_reason']}" for m in metrics if overall.get(f"{m}_reason")]
        if overall.get("n_not_applicable") and overall.get("n_not_applicable") == overall.get("n_samples"):
            found.append("not applicable: the model returned no masks or boxes (text-only)")
        for why in found:
            reasons.setdefault(why.rstrip(". "), []).append(r["_label"])
    return [f"{why} ({', '.join(labels)})." for why, labels in reasons.items()]


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
        text = [f"Captions PTB-tokenized by {' / '.join(tokenizers)}."] if tokenizers else []
        out.append(
            ReportSection(
                f"RVTBench: {task}",
                "\n\n".join(text + _why_empty(mine, task, metrics)),
                [metric_table(mine, task, m, m == _headline_metric(mine, task, metrics)) for m in metrics],
                figures,
                level=3,
                key=f"rvtbench-{task}",
            )
        )
    return out
