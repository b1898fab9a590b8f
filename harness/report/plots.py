"""Matplotlib plots as PNG bytes (Agg canvas, no pyplot state): bars with CIs and chance bands, tier lines
with an OLS trend, stacked shares. Used by the generic section and by benchmark renderers.

Layout rules every plot keeps (checked by `layout_problems` on the figures the tests capture at `_png`): legends sit outside the axes
(never over data), the figure's constrained layout keeps every label inside the image, and every series has
its own colour (and, past ten series, its own hatch), so no two bars or lines look alike.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np

CHANCE_COLOUR = "#9e9e9e"
#: ten well separated colours (matplotlib's tab10); series past ten reuse them with a hatch
PALETTE = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"
]  # fmt: skip
HATCHES = ["", "//", "..", "xx", "\\\\", "oo"]
MARKERS = "os^Dv<>pPX*h"

Num = Optional[float]


def series_style(k: int) -> tuple[str, str]:
    """(colour, hatch) of the k-th series: distinct for the first len(PALETTE) * len(HATCHES) series."""
    return PALETTE[k % len(PALETTE)], HATCHES[(k // len(PALETTE)) % len(HATCHES)]


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _legend_below(fig, ax_or_handles: Any, n_entries: int) -> None:
    """One legend for the figure, below the axes (outside the data), in as many columns as fit."""
    handles, labels = ax_or_handles.get_legend_handles_labels()
    if handles:
        longest = max((len(lb) for lb in labels), default=1)
        ncol = max(1, min(n_entries, int(fig.get_figwidth() * 11 // max(8, longest))))
        fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=7, frameon=False)


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
    the chance level shaded as a grey band from 0 (one level, or one per category); legend below."""
    fig = _figure(
        max(5.0, 0.9 * len(categories) * max(1, len(series)) ** 0.5 + 2.5), 3.6 + 0.18 * len(series)
    )
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
        colour, hatch = series_style(k)
        ax.bar(
            x - 0.4 + width * (k + 0.5),
            np.nan_to_num(vals),
            width,
            label=label,
            color=colour,
            hatch=hatch,
            edgecolor="white" if hatch else colour,
            yerr=err,
            capsize=2,
            error_kw={"elinewidth": 0.8},
        )
    long = max((len(c) for c in categories), default=0) > 8
    ax.set_xticks(x)
    ax.set_xticklabels(categories, rotation=25 if long else 0, ha="right" if long else "center", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if pct:
        ax.set_ylim(0, 100)
    _legend_below(fig, ax, len(series) + int(labelled))
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
    models' points (the average decline, as CycliST Fig. 8); chance shaded as a grey band; legend below."""
    models = list(dict.fromkeys(m for _, _, series in panels for m in series))
    fig = _figure(max(5.0, 3.6 * len(panels)), 3.6 + 0.18 * len(models))
    ref = None
    for p, (title, labels, series) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), p + 1)
        ref = ref or ax
        x = np.arange(len(labels), dtype=float)
        if chance is not None:
            ax.axhspan(0, _scale(chance, pct), color=CHANCE_COLOUR, alpha=0.25, lw=0, label="chance")
        xs, ys = [], []
        for model, values in series.items():
            k = models.index(model)
            vals = np.array([_scale(v, pct) for v in values], dtype=float)
            colour, _ = series_style(k)
            style = "-" if k < len(PALETTE) else ":"
            ax.plot(
                x, vals, style, marker=MARKERS[k % len(MARKERS)], color=colour, label=model, clip_on=False
            )
            xs.extend(x.tolist())
            ys.extend(vals.tolist())
        fit = ols_line(xs, ys)
        if fit is not None:
            slope, icpt = fit
            ax.plot(x, slope * x + icpt, "k--", lw=1.2, label="OLS trend (all models)")
            title = f"{title}\nOLS {slope:+.1f}/step"
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_xlim(-0.3, len(labels) - 0.7)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(ylabel if p == 0 else "")
        if pct:
            ax.set_ylim(0, 100)
    if ref is not None:
        _legend_below(fig, ref, len(models) + 2)
    return _png(fig)


def stacked_shares(
    panels: Sequence[tuple[str, Sequence[str], dict[str, Sequence[Num]]]],
    title: str,
    xlabel: str = "share of errors (%)",
) -> bytes:
    """Horizontal stacked bars, one panel per (name, row labels, {part: values}): a bar per row (model),
    a segment per part (e.g. the distractor kinds of one dimension); each panel's legend below it."""
    rows = max((len(r) for _, r, _ in panels), default=1)
    fig = _figure(max(5.0, 3.4 * len(panels)), 0.45 * rows + 2.4)
    fig.suptitle(title, fontsize=10)
    for p, (name, labels, parts) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), p + 1)
        left = np.zeros(len(labels))
        y = np.arange(len(labels))
        for k, (part, values) in enumerate(parts.items()):
            vals = np.nan_to_num(np.array([_scale(v, True) for v in values], dtype=float))
            colour, hatch = series_style(k)
            ax.barh(y, vals, left=left, label=part, color=colour, hatch=hatch, edgecolor="white")
            left += vals
        ax.set_yticks(y)
        ax.set_yticklabels(labels if p == 0 else [""] * len(labels), fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=min(3, len(parts)),
                  frameon=False)  # fmt: skip
    return _png(fig)


def _bar_containers(ax) -> list[Any]:
    from matplotlib.container import BarContainer

    return [c for c in ax.containers if isinstance(c, BarContainer) and c.patches]


def _extents(fig, renderer) -> dict[str, list[Any]]:
    """Window extents of what a figure shows: data artists, legends and text labels."""
    from matplotlib.transforms import Bbox

    out: dict[str, list[Any]] = {"data": [], "legend": [], "text": []}
    for ax in fig.axes:
        for bars in _bar_containers(ax):
            for patch in bars.patches:
                if patch.get_width() and patch.get_height():
                    out["data"].append((f"bar of '{bars.get_label()}'", patch.get_window_extent(renderer)))
        for line in ax.lines:
            pts = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))
            for px, py in pts[np.isfinite(pts).all(axis=1)]:
                out["data"].append((f"point of '{line.get_label()}'", Bbox.from_bounds(px - 2, py - 2, 4, 4)))
        legend = ax.get_legend()
        if legend is not None:
            out["legend"].append(legend.get_window_extent(renderer))
        out["legend"] += [t.get_window_extent(renderer) for t in ax.texts]  # notes inside axes: the same rule
        labels = [*ax.get_xticklabels(), *ax.get_yticklabels(), ax.xaxis.label, ax.yaxis.label, ax.title]
        out["text"] += [(t.get_text(), t.get_window_extent(renderer)) for t in labels if t.get_text()]
    out["legend"] += [lg.get_window_extent(renderer) for lg in fig.legends]
    if fig._suptitle is not None:
        out["text"].append((fig._suptitle.get_text(), fig._suptitle.get_window_extent(renderer)))
    return out


def layout_problems(fig) -> list[str]:
    """What is wrong with a figure's layout: a legend over a bar or a data point, a label outside the image,
    overlapping tick labels, two series drawn alike. Empty when the figure is clean."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ext = _extents(fig, renderer)
    problems = []
    frame = fig.bbox.padded(0.5)
    for text, box in ext["text"]:
        if not (frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)):
            problems.append(f"label '{text}' is cut by the image edge")
    for legend in ext["legend"]:
        if not (frame.contains(legend.x0, legend.y0) and frame.contains(legend.x1, legend.y1)):
            problems.append("a legend is cut by the image edge")
        for what, box in ext["data"]:
            if legend.overlaps(box):
                problems.append(f"a legend covers the {what}")
                break
    for ax in fig.axes:
        ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
        if any(a.overlaps(b) for i, a in enumerate(ticks) for b in ticks[i + 1 :]):
            problems.append(f"x tick labels of '{ax.get_title()}' overlap")
        styles = [(str(b.patches[0].get_facecolor()), b.patches[0].get_hatch()) for b in _bar_containers(ax)]
        if len(styles) != len(set(styles)):
            problems.append(f"two bar series of '{ax.get_title()}' look alike")
    return problems
