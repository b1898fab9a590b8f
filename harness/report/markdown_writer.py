"""Write report sections as markdown (report.md) with the figures as PNG files next to it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.report.escaping import markdown_text, table_cell
from harness.report.formatting import chance_text, ci_text, value_text
from harness.report.sections import Cell, ReportSection, Table

BELOW_CHANCE_MARK = "°"


def column_chance(table: Table, col: int) -> str:
    """The column's chance level when every cell that has one agrees (shown in the header), else ''."""
    levels = {
        chance_text(cells[col])
        for _, cells in table.rows
        if cells[col].chance is not None and cells[col].show_chance
    }
    return levels.pop() if len(levels) == 1 else ""


def cell_markdown(cell: Cell, show_chance: bool) -> str:
    """'72.9 [70.1, 75.3]' plus a chance mark or level when relevant; a text cell (a model's output, an id)
    escaped as Markdown text."""
    if cell.fmt == "text":
        return markdown_text(value_text(cell))
    parts = [value_text(cell)]
    ci = ci_text(cell)
    if ci:
        parts.append(ci)
    if show_chance and cell.chance is not None and cell.show_chance:
        parts.append(f"(chance {chance_text(cell)})")
    text = " ".join(parts)
    if cell.at_or_below_chance():
        text += BELOW_CHANCE_MARK
    if cell.note:
        text += f" ({cell.note})"
    return table_cell(text)


def table_markdown(table: Table) -> str:
    """A pipe table with a bold title line and its note."""
    headers = []
    shared = []
    for i, c in enumerate(table.columns):
        level = column_chance(table, i)
        shared.append(bool(level))
        headers.append(markdown_text(c) + (f" (chance {level})" if level else ""))
    lines = [
        f"**{markdown_text(table.title)}**",
        "",
        "| " + " | ".join([markdown_text(table.row_header), *headers]) + " |",
        "|" + "---|" * (len(headers) + 1),
    ]
    for label, cells in table.rows:
        row = [markdown_text(label)] + [cell_markdown(c, not shared[i]) for i, c in enumerate(cells)]
        lines.append("| " + " | ".join(row) + " |")
    notes = [table.note] if table.note else []
    if any(c.at_or_below_chance() for _, cells in table.rows for c in cells):
        notes.append(f"{BELOW_CHANCE_MARK} at or below chance.")
    if notes:
        lines += ["", "_" + " ".join(notes) + "_"]
    return "\n".join(lines)


def figure_file(section: ReportSection, name: str) -> str:
    """The figure's file name in the report folder (section anchor + figure name)."""
    stem = name if name.endswith(".png") else name + ".png"
    return f"{section.anchor()}__{stem}"


def write_figures(sections: Sequence[ReportSection], out_dir: Path) -> list[Path]:
    """Every figure's PNG under out_dir (names from figure_file); the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for s in sections:
        for f in s.figures:
            path = out_dir / figure_file(s, f.name)
            path.write_bytes(f.data())
            written.append(path)
    return written


def render_markdown(sections: Sequence[ReportSection], title: str = "Evaluation report") -> str:
    """The whole report as markdown text (figures referenced by relative file name)."""
    out = [f"# {markdown_text(title)}", ""]
    for s in sections:
        out += ["#" * max(2, min(6, s.level)) + " " + markdown_text(s.title), ""]
        if s.text:
            out += [s.text, ""]
        for t in s.tables:
            out += [table_markdown(t), ""]
        for f in s.figures:
            caption = markdown_text(f.caption)
            out += [f"![{caption}]({figure_file(s, f.name)})", "", f"_{caption}_", ""]
    return "\n".join(out).rstrip() + "\n"
