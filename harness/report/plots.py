"""Matplotlib plots as PNG bytes (Agg canvas, no pyplot state): bars with CIs and chance bands, tier lines
with an OLS trend, stacked shares. Used by the generic section and by benchmark renderers."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Optional, Union

import numpy as np

CHANCE_COLOUR = "#9e9e9e"
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

Num = Optional[float]


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _scale(x: Num, pct: bool) -> float:
    return np.nan if x is None else (100.0 * x if pct else float(x))


def bar_chart(
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[Num], Sequence[Optional[tuple[Num, Num]]]]],
    title: str,
    ylabel: str,
    chance: Union[None, float, Sequence[Num]] = None,
    pct: bool = True,
) -> bytes:
    """Grouped bars: one group per category, one bar per series (label, values, CIs), with CI whiskers and
    the chance level shaded as a grey band from 0 (one level, or one per category)."""
    fig = _figure(max(4.5, 1.1 * len(categories) * max(1, len(series)) ** 0.5 + 2), 3.4)
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(categories))
    width = 0.8 / max(1, len(series))
    levels = [chance] * len(categories) if chance is None or isinstance(chance, (int, float)) else chance
    labelled = False
    for i, c in enumerate(levels):
        if c is not None:
            ax.add_patch(_rect(i - 0.45, 0, 0.9, _scale(c, pct), label=None if labelled else "chance"))
            labelled = True
    for k, (label, values, cis) in enumerate(series):
        vals = np.array([_scale(v, pct) for v in values], dtype=float)
        lows = np.array([_scale(ci[0], pct) if ci else np.nan for ci in cis], dtype=float)
        highs = np.array([_scale(ci[1], pct) if ci else np.nan for ci in cis], dtype=float)
        err = np.vstack([np.nan_to_num(vals - lows), np.nan_to_num(highs - vals)]).clip(min=0)
        pos = x - 0.4 + width * (k + 0.5)
        ax.bar(
            pos,
            np.nan_to_num(vals),
            width,
            label=label,
            color=PALETTE[k % len(PALETTE)],
            yerr=err,
            capsize=2,
            error_kw={"elinewidth": 0.8},
        )
    ax.set_xticks(x)
    ax.set_xticklabels(
        categories,
        rotation=20 if max((len(c) for c in categories), default=0) > 8 else 0,
        ha="right" if max((len(c) for c in categories), default=0) > 8 else "center",
        fontsize=8,
    )
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if pct:
        ax.set_ylim(0, 100)
    ax.legend(fontsize=7, loc="upper right", framealpha=0.8)
    return _png(fig)


def _rect(x: float, y: float, w: float, h: float, label: Optional[str] = None):
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), w, h, color=CHANCE_COLOUR, alpha=0.25, lw=0, label=label)


def ols_line(xs: Sequence[float], ys: Sequence[float]) -> Optional[tuple[float, float]]:
    """(slope, intercept) of the least-squares line through the points, or None with < 2 distinct x."""
    pts = [(float(x), float(y)) for x, y in zip(xs, ys, strict=True) if y is not None and not np.isnan(y)]
    if len({p[0] for p in pts}) < 2:
        return None
    a = np.array(pts)
    slope, intercept = np.polyfit(a[:, 0], a[:, 1], 1)
    return float(slope), float(intercept)


def tier_lines(
    panels: Sequence[tuple[str, Sequence[str], dict[str, Sequence[Num]]]],
    ylabel: str,
    chance: Num = None,
    pct: bool = True,
) -> bytes:
    """One panel per (title, x labels, {model: values}): a line per model and a dashed OLS line over all
    models' points (the average decline, as CycliST Fig. 8); chance shaded as a grey band."""
    fig = _figure(4.2 * len(panels), 3.4)
    markers = "os^Dv<>p"
    for p, (title, labels, series) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), p + 1)
        x = np.arange(len(labels), dtype=float)
        if chance is not None:
            ax.axhspan(0, _scale(chance, pct), color=CHANCE_COLOUR, alpha=0.25, lw=0, label="chance")
        xs, ys = [], []
        for k, (model, values) in enumerate(series.items()):
            vals = np.array([_scale(v, pct) for v in values], dtype=float)
            ax.plot(x, vals, marker=markers[k % len(markers)], color=PALETTE[k % len(PALETTE)], label=model)
            xs.extend(x.tolist())
            ys.extend(vals.tolist())
        fit = ols_line(xs, ys)
        if fit is not None:
            slope, icpt = fit
            ax.plot(x, slope * x + icpt, "k--", lw=1.2, label=f"OLS ({slope:+.1f}/step)")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(ylabel)
        if pct:
            ax.set_ylim(0, 100)
        ax.legend(fontsize=7, framealpha=0.8)
    return _png(fig)


def stacked_shares(
    rows: Sequence[str], parts: dict[str, Sequence[Num]], title: str, xlabel: str = "share of errors (%)"
) -> bytes:
    """Horizontal stacked bars: one bar per row (model), one segment per part (e.g. distractor kind)."""
    fig = _figure(6.0, 0.5 * len(rows) + 1.6)
    ax = fig.add_subplot(1, 1, 1)
    left = np.zeros(len(rows))
    for k, (name, values) in enumerate(parts.items()):
        vals = np.array([_scale(v, True) for v in values], dtype=float)
        vals = np.nan_to_num(vals)
        ax.barh(rows, vals, left=left, label=name, color=PALETTE[k % len(PALETTE)])
        left += vals
    ax.set_xlim(0, 100)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncol=min(4, max(1, len(parts))), loc="lower right", framealpha=0.8)
    return _png(fig)
