"""The report's building blocks: cells, tables, figures and sections, as plain dataclasses.

Benchmark plugins return `ReportSection`s from their `register_reports` renderers; the markdown and HTML
writers turn them into pages. A cell carries its value, an optional confidence interval, sample count and
chance level, so every writer can show the interval and shade the paper's chance-to-best colour band.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Optional, Union

Format = Literal["pct", "num", "int", "text", "delta_pct"]


@dataclass
class Cell:
    """One table cell.

    `value` is a float in the metric's own unit (accuracies as fractions: `fmt="pct"` prints 72.9 for
    0.729), a string for text cells, or None for "no data". `chance` and `best` span the colour band: the
    cell is shaded by where `value` lies between them (the papers' "(50% 100%)" bands); a value on the
    wrong side of `chance` is marked as at/below chance. `best` defaults to 1.0 for fractions.
    `show_chance=False` shades the band without printing `chance` as a chance level (e.g. an MAE band
    from the paper's "bad" level to 0, or a delta band around 0).
    """

    value: Union[float, int, str, None]
    ci: Optional[tuple[Optional[float], Optional[float]]] = None
    n: Optional[int] = None
    chance: Optional[float] = None
    best: Optional[float] = None
    fmt: Format = "pct"
    note: str = ""
    show_chance: bool = True

    def number(self) -> Optional[float]:
        """The numeric value, or None for text or missing cells."""
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            return None
        return None if math.isnan(float(self.value)) else float(self.value)

    def band_position(self) -> Optional[float]:
        """Where the value lies in the chance-to-best band: 0 at chance, 1 at best; negative below chance.

        None when the cell has no chance level or no numeric value.
        """
        v = self.number()
        if v is None or self.chance is None:
            return None
        best = self.best if self.best is not None else 1.0
        if best == self.chance:
            return None
        return (v - self.chance) / (best - self.chance)

    def at_or_below_chance(self) -> bool:
        """True when a chance level is shown and the value does not beat it."""
        if not self.show_chance:
            return False
        pos = self.band_position()
        return pos is not None and pos <= 0


@dataclass
class Table:
    """A table with models (or other labels) as rows; `columns` excludes the row-label column.

    `headline=True` marks a benchmark's headline tables: a run prints them on the console after its summary
    (harness.report.console); every table goes to the report.
    """

    title: str
    columns: list[str]
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)
    row_header: str = "model"
    note: str = ""
    headline: bool = False

    def add_row(self, label: str, cells: list[Cell]) -> None:
        """Append a row; the number of cells must match the columns."""
        if len(cells) != len(self.columns):
            raise ValueError(
                f"table '{self.title}': row '{label}' has {len(cells)} cells for {len(self.columns)} columns"
            )
        self.rows.append((label, cells))

    def cell(self, row: str, column: str) -> Cell:
        """The cell at (row label, column name); KeyError naming both when absent."""
        col = self.columns.index(column)
        for label, cells in self.rows:
            if label == row:
                return cells[col]
        raise KeyError(f"table '{self.title}' has no row '{row}'")


@dataclass
class Figure:
    """A PNG figure: its bytes (or a path to a PNG file), a caption and a file name for the report folder."""

    name: str
    caption: str
    png: Optional[bytes] = None
    path: Optional[Path] = None

    def data(self) -> bytes:
        """The PNG bytes (read from `path` when no bytes were given)."""
        if self.png is not None:
            return self.png
        if self.path is None:
            raise ValueError(f"figure '{self.name}' has neither PNG bytes nor a path")
        return Path(self.path).read_bytes()


@dataclass
class ReportSection:
    """A titled part of the report: markdown text, tables and figures (written in that order).

    `level` is the heading level (2 for a benchmark, 3 for a part of one); `key` makes a stable anchor
    and file-name prefix (derived from the title when empty).
    """

    title: str
    text: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    level: int = 2
    key: str = ""

    def anchor(self) -> str:
        """A stable id for links and figure file names."""
        base = self.key or self.title
        return "".join(c if c.isalnum() else "-" for c in base.lower()).strip("-") or "section"
