"""The report sections every task gets, whatever its plugin: headline metrics with CIs, the breakdown
tables of task_results[task]["breakdowns"], error counts, groups, and an overview bar chart."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from pydantic import ValidationError

from harness.frames.spec import FrameSpec
from harness.report import plots
from harness.report.loading import (
    all_groups,
    all_tasks,
    group_result,
    runs_with_task,
    task_config,
    task_result,
)
from harness.report.sections import Cell, Figure, ReportSection, Table
from harness.report.stats import ci_from_samples, cluster_of

_FRACTION_NAMES = re.compile(
    r"(acc|f1|precision|recall|iou|^j$|^f$|j&f|j_and_f|jf|pass_at|rate|invalid|indefinite|share|^ap|ap50"
    r"|rouge|bleu|meteor|spice)",
    re.IGNORECASE,
)


def metric_format(name: str, values: Sequence[Optional[float]]) -> str:
    """'pct' for fraction-valued metrics (by name, and every value in [0, 1]), else 'num'."""
    nums = [v for v in values if v is not None]
    if _FRACTION_NAMES.search(name) and all(0.0 <= v <= 1.0 for v in nums):
        return "pct"
    return "num"


def one_scale(fmts: dict[str, str]) -> dict[str, str]:
    """One scale per table: every column in percent when all are fractions, else every column as is."""
    scale = "pct" if fmts and all(f == "pct" for f in fmts.values()) else "num"
    return {k: scale for k in fmts}


def describe_frames(spec: Optional[dict]) -> str:
    """A results file's frame spec as people write it ('uniform, 32 frames, max side 448')."""
    try:
        return FrameSpec.model_validate(spec).describe()
    except ValidationError:
        return str(spec)


def _ci(metric: dict[str, Any]) -> Optional[tuple[Optional[float], Optional[float]]]:
    ci = metric.get("ci")
    return (ci[0], ci[1]) if ci and ci[0] is not None else None


def _metric_names(runs: Sequence[dict], task: str) -> list[str]:
    names: list[str] = []
    for r in runs:
        res = task_result(r, task) or {}
        head = res.get("headline")
        for m in [head, *(res.get("metrics") or {})]:
            if m and m not in names:
                names.append(m)
    return names


def metrics_table(runs: Sequence[dict], task: str) -> Table:
    """Models as rows; every metric (value and CI) then sample, error and invalid counts."""
    names = _metric_names(runs, task)
    fmts = one_scale({
        m: metric_format(m, [(task_result(r, task)["metrics"].get(m) or {}).get("value") for r in runs])
        for m in names
    })
    table = Table(
        f"{task}: metrics",
        names + ["rows", "coverage", "samples", "errors", "invalid", "dropped"],
        note="95 % clustered bootstrap intervals in brackets; errors are left out of every metric; "
        "coverage = scored / rows of the split (docs/results.md).",
    )
    for r in runs:
        res = task_result(r, task)
        cells = []
        for m in names:
            metric = res["metrics"].get(m) or {}
            cells.append(Cell(metric.get("value"), _ci(metric), metric.get("n"), fmt=fmts[m]))
        kinds = ", ".join(f"{k} {v}" for k, v in sorted((res.get("errors") or {}).items()))
        dropped = ", ".join(f"{k} {v}" for k, v in sorted((res.get("dropped") or {}).items()))
        cells.append(Cell(res.get("n_rows"), fmt="int"))
        cells.append(Cell(res.get("coverage"), fmt="pct"))
        cells.append(Cell(res.get("n_samples"), fmt="int"))
        cells.append(Cell(res.get("n_errors"), fmt="int", note=kinds))
        cells.append(Cell(res.get("n_invalid"), fmt="int"))
        cells.append(Cell(res.get("n_dropped"), fmt="int", note=dropped))
        table.add_row(r["_label"], cells)
    return table


def _breakdown_fields(run: dict, task: str, label: str) -> Optional[list[str]]:
    for key in task_config(run, task).get("breakdowns") or []:
        fields = [key] if isinstance(key, str) else list(key)
        if "x".join(fields) == label:
            return fields
    return None


def _where(fields: list[str], value: str):
    parts = value.split("|")

    def where(rec: dict) -> bool:
        doc = rec.get("doc") or {}
        return [str(doc.get(f)) for f in fields] == parts

    return where


def breakdown_names(runs: Sequence[dict], task: str, label: str) -> dict[str, str]:
    """A breakdown's values in the task's order with their display names, from the task config's
    `metadata.breakdown_labels.<field>`: [[value, name], ...] (a list: results files sort mapping keys)."""
    for r in runs:
        labels = (task_config(r, task).get("metadata") or {}).get("breakdown_labels") or {}
        pairs = labels.get(label)
        if isinstance(pairs, list) and all(isinstance(p, list) and len(p) == 2 for p in pairs):
            return {str(value): str(name) for value, name in pairs}
    return {}


def breakdown_tables(runs: Sequence[dict], task: str) -> list[Table]:
    """One table per breakdown: models as rows, the breakdown's values as columns, the headline metric."""
    labels: list[str] = []
    for r in runs:
        for label in (task_result(r, task) or {}).get("breakdowns") or {}:
            if label not in labels:
                labels.append(label)
    tables = []
    for label in labels:
        names = breakdown_names(runs, task, label)
        values = sorted(
            {v for r in runs for v in ((task_result(r, task)["breakdowns"] or {}).get(label) or {})},
            key=lambda v: (list(names).index(v) if v in names else len(names), v),
        )
        headline = task_result(runs[0], task).get("headline")
        fmt = metric_format(
            headline or "",
            [
                ((task_result(r, task)["breakdowns"].get(label) or {}).get(v, {}).get(headline) or {}).get(
                    "value"
                )
                for r in runs
                for v in values
            ],
        )
        table = Table(
            f"{task}: {headline} by {label}",
            [names.get(v, v) for v in values],
            note="cells: value [95 % CI from the samples file, when present]; n in the HTML tooltip",
        )
        for r in runs:
            res = task_result(r, task)
            head = res.get("headline")
            fields = _breakdown_fields(r, task, label)
            cells = []
            for v in values:
                entry = (res["breakdowns"].get(label) or {}).get(v)
                if not entry or head not in entry:
                    cells.append(Cell(None))
                    continue
                ci = ci_from_samples(r, task, head, _where(fields, v)) if fields else None
                cells.append(Cell(entry[head].get("value"), ci, entry[head].get("n"), fmt=fmt))
            table.add_row(r["_label"], cells)
        tables.append(table)
    return tables


def size_text(run: dict, task: str) -> str:
    """What the task was evaluated on, counted from the run (a built subset's real size, whatever its
    description says): rows, and the distinct clusters (videos) among the logged samples."""
    res = task_result(run, task) or {}
    text = f"Evaluated on {res.get('n_rows', res.get('n_samples', '?'))} rows"
    records = (run.get("_samples") or {}).get(task)
    if records:
        field = task_config(run, task).get("cluster_field")
        text += f" from {len({cluster_of(r, field) for r in records})} distinct `{field or 'doc_id'}` values"
    return text + "."


def task_section(runs: Sequence[dict], task: str) -> ReportSection:
    """The generic section of one task."""
    present = runs_with_task(runs, task)
    cfg = task_config(present[0], task)
    frames = ((present[0].get("config") or {}).get("tasks") or {}).get(task, {}).get("effective_frame_spec")
    text = []
    if cfg.get("description"):
        text.append(cfg["description"])
    text.append(size_text(present[0], task))
    head = task_result(present[0], task).get("headline")
    text.append(f"Headline metric: `{head}`; version {cfg.get('version', '?')}; frames: {describe_frames(frames)}.")
    tables = [metrics_table(present, task), *breakdown_tables(present, task)]
    return ReportSection(f"Task {task}", "\n\n".join(text), tables, level=3, key=f"task-{task}")


def overview_section(runs: Sequence[dict]) -> ReportSection:
    """Headline metric of every task (and group) per model, and a bar chart of them with CIs."""
    tasks = all_tasks(runs)
    heads = {t: task_result(runs_with_task(runs, t)[0], t).get("headline") for t in tasks}
    columns = [f"{t} ({heads[t]})" for t in tasks]
    fmts = one_scale({
        t: metric_format(
            heads[t] or "",
            [
                ((task_result(r, t) or {}).get("metrics", {}).get(heads[t]) or {}).get("value")
                for r in runs_with_task(runs, t)
            ],
        )
        for t in tasks
    })
    table = Table("Headline metrics", columns, note="95 % clustered bootstrap intervals in brackets.")
    series = []
    for r in runs:
        cells, vals, cis = [], [], []
        for t in tasks:
            res = task_result(r, t)
            metric = (res or {}).get("metrics", {}).get(heads[t]) or {}
            cells.append(Cell(metric.get("value"), _ci(metric), metric.get("n"), fmt=fmts[t]))
            vals.append(metric.get("value"))
            cis.append(_ci(metric))
        table.add_row(r["_label"], cells)
        series.append((r["_label"], vals, cis))
    tables = [table]
    if all_groups(runs):
        tables.append(groups_table(runs))
    figures = []
    pct = all(f == "pct" for f in fmts.values())
    if tasks and len(tasks) <= 40:  # every task, on the table's one scale
        chart = plots.bar_chart(
            tasks, series, "Headline metric by task (95 % CI)", "%" if pct else "value", pct=pct
        )
        figures.append(
            Figure("overview_headline.png", "Headline metric per task and model, 95 % CIs.", chart)
        )
    return ReportSection("Overview", "", [runs_table(runs), *tables], figures, level=2, key="overview")


def groups_table(runs: Sequence[dict]) -> Table:
    """Every metric of every group, as the console prints them (one column per group and metric)."""
    columns: list[tuple[str, str]] = []
    for g in all_groups(runs):
        for r in runs:
            for name in (group_result(r, g) or {}).get("metrics") or {}:
                if (g, name) not in columns:
                    columns.append((g, name))
    values = {c: [(((group_result(r, c[0]) or {}).get("metrics") or {}).get(c[1]) or {}) for r in runs] for c in columns}
    fmts = one_scale({c: metric_format(c[1], [m.get("value") for m in values[c]]) for c in columns})
    table = Table("Groups", [f"{g} ({name})" for g, name in columns], note="sample-weighted mean over the members (n)")
    for i, r in enumerate(runs):
        table.add_row(r["_label"], [Cell(values[c][i].get("value"), None, values[c][i].get("n"), fmt=fmts[c]) for c in columns])
    return table


def runs_table(runs: Sequence[dict]) -> Table:
    """Which results files each row label stands for (paths relative to the folder they share)."""
    paths = [Path(p) for r in runs for p in r.get("_sources") or [r["_source"]]]
    root = Path(os.path.commonpath([str(p.parent) for p in paths])) if paths else Path(".")
    table = Table("Runs", ["results files"], note=f"Files under `{root}`.")
    for r in runs:
        files = [str(Path(p).relative_to(root)) for p in r.get("_sources") or [r["_source"]]]
        table.add_row(r["_label"], [Cell(", ".join(files), fmt="text")])
    return table


def generic_sections(runs: Sequence[dict]) -> list[ReportSection]:
    """Overview plus one section per task."""
    out = [
        overview_section(runs),
        ReportSection("All tasks", "Every task's metrics, breakdowns and counts.", level=2, key="all-tasks"),
    ]
    out.extend(task_section(runs, t) for t in all_tasks(runs))
    return out
