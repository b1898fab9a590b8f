"""No empty tables, rows, columns or sections in a report: what has no data is left out and said so.

A benchmark renderer lays out the paper's tables whatever was evaluated (every tier, every level); a run
covers part of them. Before writing, the report drops rows and columns whose every cell is empty, and whole
tables without a value, and names what it left out in the table's note or the section's text, so a reader
never meets a table of dashes or a heading with nothing under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Optional

from harness.report.sections import Cell, ReportSection, Table


def is_empty(cell: Cell) -> bool:
    """True when the cell has no value to show (None, NaN or an empty string)."""
    if isinstance(cell.value, str):
        return not cell.value.strip()
    return cell.number() is None


def _listing(names: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def prune_table(table: Table) -> Optional[Table]:
    """The table without its empty rows and columns (named in the note); None when no cell has a value."""
    rows = [(label, cells) for label, cells in table.rows if not all(is_empty(c) for c in cells)]
    if not rows:
        return None
    keep = [i for i in range(len(table.columns)) if not all(is_empty(cells[i]) for _, cells in rows)]
    notes = [table.note if table.note.rstrip().endswith((".", ")", ":")) else table.note.rstrip() + "."] if table.note else []
    dropped_cols = [c for i, c in enumerate(table.columns) if i not in keep]
    dropped_rows = [label for label, cells in table.rows if all(is_empty(c) for c in cells)]
    if dropped_cols:
        notes.append(f"Columns without data left out: {_listing(dropped_cols)}.")
    if dropped_rows:
        notes.append(f"No data for: {_listing(dropped_rows)}.")
    pruned = replace(table, columns=[table.columns[i] for i in keep], rows=[], note=" ".join(notes))
    for label, cells in rows:
        pruned.add_row(label, [cells[i] for i in keep])
    return pruned


def prune_section(section: ReportSection) -> Optional[ReportSection]:
    """The section with its tables pruned; tables without data named in its text; None when nothing is left."""
    tables, empty = [], []
    for t in section.tables:
        pruned = prune_table(t)
        if pruned is None:
            empty.append(t.title)
        else:
            tables.append(pruned)
    text = section.text
    if empty:
        text = (text + "\n\n" if text else "") + f"No data (left out): {_listing(empty)}."
    if not text and not tables and not section.figures:
        return None
    return replace(section, text=text, tables=tables)


def prune_sections(sections: Sequence[ReportSection]) -> list[ReportSection]:
    """Every section pruned (prune_section); sections left with nothing are dropped."""
    return [s for s in (prune_section(x) for x in sections) if s is not None]
