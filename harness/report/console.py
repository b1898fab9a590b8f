"""What a run prints when it ends: every task's metrics with their accounting, each benchmark's headline
tables in the paper's layout (its report renderer's tables marked `headline`), and the command that writes
the full report (every paper table, plots, the sample viewer)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Optional

from harness.report.engine import renderer_sections
from harness.report.escaping import table_cell, terminal_text
from harness.report.markdown_writer import table_markdown
from harness.report.pruning import prune_table

PARTIAL_NOTE = (
    "* over fewer rows than the split (errors, dropped rows, --limit, or not applicable): "
    "see coverage and the results file's accounting"
)


def _coverage(res: dict) -> str:
    return f"{res['coverage']:.0%} ({res['n_scored']}/{res['n_rows']})" if "coverage" in res else "-"


def summary_table(results: dict[str, Any]) -> str:
    """Every task's (and group's) metrics with CI, n, coverage and counts; `*` marks a metric over fewer
    rows than the split (PARTIAL_NOTE follows the table then)."""
    rows = [
        "| task | metric | value | 95% CI | n | coverage | errors | invalid | dropped |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    partial = False
    for name, res in (results.get("task_results") or {}).items():
        for mname, m in res["metrics"].items():
            ci = m.get("ci") or [None, None]
            ci_text = f"[{ci[0]:.4f}, {ci[1]:.4f}]" if None not in ci else "-"
            value = "-" if m["value"] is None else f"{m['value']:.4f}"
            mark = "*" if m["n"] < res.get("n_rows", m["n"]) else ""
            partial = partial or bool(mark)
            rows.append(
                f"| {table_cell(name)} | {table_cell(mname)} | {value}{mark} | {ci_text} | {m['n']} | {_coverage(res)} | {res['n_errors']} "
                f"| {res['n_invalid']} | {res.get('n_dropped', 0)} |"
            )
    for name, g in (results.get("group_results") or {}).items():
        for mname, m in g["metrics"].items():
            value = "-" if m["value"] is None else f"{m['value']:.4f}"
            mark = "*" if "n_rows" in g and m["n"] < g["n_rows"] else ""
            partial = partial or bool(mark)
            rows.append(
                f"| {table_cell(name)} (group) | {table_cell(mname)} | {value}{mark} | - | {m['n']} | {_coverage(g)} "
                f"| {g.get('n_errors', '-')} | {g.get('n_invalid', '-')} | {g.get('n_dropped', '-')} |"
            )
    return "\n".join(rows + ([PARTIAL_NOTE] if partial else []))


def headline_tables(
    results: dict[str, Any], records: Optional[dict[str, list[dict]]], registry: Any
) -> list[str]:
    """The benchmarks' headline tables for this run, as markdown (empty rows and columns left out)."""
    run = {
        **results,
        "_label": str((results.get("model") or {}).get("name") or "model"),
        "_source": "(this run)",
        "_sources": ["(this run)"],
        "_samples": records or {},
    }
    out = []
    for section in renderer_sections([run], registry):
        for table in section.tables:
            pruned = prune_table(table) if table.headline else None
            if pruned is not None:
                out.append(table_markdown(pruned))
    return out


def report_hint(results_path: Optional[Path]) -> str:
    """The command that writes the full report of this run (or how to keep results for one)."""
    if results_path is None:
        return "full report: rerun with --output_path DIR, then `python -m harness report DIR --out REPORT`"
    out = results_path.parent / "report"
    return (
        "all paper tables, plots and sample viewer: "
        f"python -m harness report {shlex.quote(str(results_path))} --out {shlex.quote(str(out))}"
    )


def run_summary(
    results: dict[str, Any],
    records: Optional[dict[str, list[dict]]] = None,
    registry: Any = None,
    results_path: Optional[Path] = None,
) -> str:
    """The console text after a run: summary table, headline paper tables, the report command."""
    parts = [summary_table(results)]
    if registry is not None:
        parts += headline_tables(results, records, registry)
    parts.append(report_hint(results_path))
    return terminal_text("\n\n".join(parts))
