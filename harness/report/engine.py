"""The report engine: runs in, sections out (generic ones, every registered benchmark renderer's, the
sample viewer), then report.md, report.html and the PNG figures written to a folder."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from harness.report.generic import generic_sections
from harness.report.html_writer import render_html
from harness.report.markdown_writer import render_markdown, write_figures
from harness.report.pruning import prune_sections
from harness.report.sections import ReportSection
from harness.report.viewer import viewer_sections
from harness.results.writer import atomic_write_text

log = logging.getLogger(__name__)


@dataclass
class ReportFiles:
    """What write_report wrote."""

    markdown: Path
    html: Path
    figures: list[Path]


def renderer_sections(runs: Sequence[dict[str, Any]], registry: Any) -> list[ReportSection]:
    """Sections from every registered report renderer (registry kind "report"), in name order.

    A renderer that raises is reported in a section naming it (and logged); the others still run.
    """
    out: list[ReportSection] = []
    for entry in registry.entries("report"):
        try:
            fn = entry.load()
            sections = list(fn(list(runs)) or [])
        except Exception as exc:  # a broken plugin must not stop the report; the section names it
            log.warning(
                "report renderer '%s' (plugin %s) failed: %s: %s",
                entry.name,
                entry.plugin,
                type(exc).__name__,
                exc,
            )
            sections = [
                ReportSection(
                    f"{entry.name}: renderer failed",
                    f"The report renderer `{entry.name}` of plugin `{entry.plugin}` raised "
                    f"`{type(exc).__name__}: {exc}`; its tables are missing.",
                    level=2,
                )
            ]
        for s in sections:
            if not isinstance(s, ReportSection):
                raise TypeError(
                    f"report renderer '{entry.name}' returned {type(s).__name__}, not ReportSection"
                )
        out.extend(sections)
    return out


def build_report(
    runs: Sequence[dict[str, Any]],
    registry: Any = None,
    data_dir: Optional[Path] = None,
    n_samples: int = 3,
) -> list[ReportSection]:
    """All sections of a report: overview, benchmark renderers' paper tables, every task, sample viewer."""
    generic = generic_sections(runs)
    benchmark = renderer_sections(runs, registry) if registry is not None else []
    return prune_sections([generic[0], *benchmark, *generic[1:], *viewer_sections(runs, n_samples, data_dir)])


def write_report(
    sections: Sequence[ReportSection], out_dir: Path, title: str = "Evaluation report"
) -> ReportFiles:
    """report.md, report.html and the figures' PNGs in out_dir (created)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = write_figures(sections, out_dir)
    md = out_dir / "report.md"
    page = out_dir / "report.html"
    atomic_write_text(md, render_markdown(sections, title))
    atomic_write_text(page, render_html(sections, title))
    return ReportFiles(md, page, figures)
