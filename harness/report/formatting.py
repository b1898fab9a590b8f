"""Text forms of cell values and intervals, shared by the markdown and HTML writers."""

from __future__ import annotations

from typing import Optional

from harness.report.sections import Cell

MISSING = "–"
ELLIPSIS = "…"


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in an ellipsis when cut (never mid-way silently)."""
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + ELLIPSIS


def _num(x: Optional[float], fmt: str) -> str:
    if x is None:
        return MISSING
    if fmt in ("pct", "delta_pct"):
        text = f"{100 * x:.1f}"
        return ("+" + text if x > 0 else text) if fmt == "delta_pct" else text
    if fmt == "int":
        return f"{int(round(x))}"
    return f"{x:.3f}" if abs(x) < 100 else f"{x:.1f}"


def value_text(cell: Cell) -> str:
    """The cell's value as printed (percent points for fractions, three decimals for plain numbers)."""
    if cell.fmt == "text" or isinstance(cell.value, str):
        return MISSING if cell.value in (None, "") else str(cell.value)
    return _num(cell.number(), cell.fmt)


def ci_text(cell: Cell) -> str:
    """'[low, high]' in the cell's unit, or '' when there is no interval."""
    if not cell.ci or cell.ci[0] is None or cell.ci[1] is None or cell.number() is None:
        return ""
    fmt = "pct" if cell.fmt == "delta_pct" else cell.fmt
    lo, hi = _num(cell.ci[0], fmt), _num(cell.ci[1], fmt)
    return f"[{lo}, {hi}]"


def chance_text(cell: Cell) -> str:
    """The chance level in the cell's unit, e.g. '50.0', or ''."""
    if cell.chance is None:
        return ""
    return _num(cell.chance, "pct" if cell.fmt == "delta_pct" else cell.fmt)
