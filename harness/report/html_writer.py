"""Write report sections as one self-contained HTML page: inline CSS, figures as base64 data URIs, no
scripts and no external assets, so the file can be mailed, archived or published as a CI artifact."""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence

from harness.report.escaping import MARKDOWN_ESCAPE, html_text
from harness.report.formatting import chance_text, ci_text, value_text
from harness.report.markdown_writer import column_chance
from harness.report.sections import Cell, ReportSection, Table

CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1200px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { border-bottom: 2px solid #444; } h2 { border-bottom: 1px solid #bbb; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0 0.3em; font-size: 0.86em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: right; vertical-align: top; }
th { background: #f2f2f2; } td.label { text-align: left; font-weight: 600; white-space: nowrap; }
td.text { text-align: left; font-family: monospace; font-size: 0.92em; max-width: 420px; word-break: break-word; }
.chance { background: repeating-linear-gradient(45deg, #eee, #eee 4px, #e0e0e0 4px, #e0e0e0 8px); color: #777; }
span.ci { color: #666; font-size: 0.85em; white-space: nowrap; } span.n { color: #999; font-size: 0.8em; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: 0.2em; }
p.note { color: #555; font-size: 0.85em; margin-top: 0; }
div.scroll { overflow-x: auto; max-width: 100%; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #555; font-size: 0.85em; }
pre { background: #f7f7f7; border: 1px solid #e3e3e3; padding: 0.5em; white-space: pre-wrap; font-size: 0.85em; }
.legend span { display: inline-block; width: 2.2em; height: 0.9em; vertical-align: middle; border: 1px solid #ccc; }
"""


def _inline(text: str) -> str:
    """Inline Markdown: `code`, **bold**, _em_, and backslash escapes (`markdown_text`) as literal text."""
    held: list[str] = []

    def hold(m: re.Match) -> str:
        held.append(m.group(1))
        return f"\ue000{len(held) - 1}\ue001"

    out = html_text(MARKDOWN_ESCAPE.sub(hold, re.sub("[\ue000\ue001]", "", text)))
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])_([^_]+)_(?![\w*])", r"<em>\1</em>", out)
    return re.sub("\ue000([0-9]+)\ue001", lambda m: html_text(held[int(m.group(1))]), out)


def markdown_to_html(text: str) -> str:
    """The small markdown subset section texts use: paragraphs, fenced code, '- ' lists, `code`, **bold**."""
    out, para, items = [], [], []
    lines = text.split("\n")
    i = 0

    def flush() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in items) + "</ul>")
            items.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>" + html_text("\n".join(lines[i + 1 : j])) + "</pre>")
            i = j + 1
            continue
        if not line.strip():
            flush()
        elif line.lstrip().startswith(("- ", "* ")):
            if para:
                flush()
            items.append(line.lstrip()[2:])
        else:
            para.append(line.strip())
        i += 1
    flush()
    return "\n".join(out)


def band_colour(cell: Cell) -> str:
    """Background for a cell in the chance-to-best band: green, stronger towards the best value."""
    pos = cell.band_position()
    if pos is None or pos <= 0:
        return ""
    alpha = 0.12 + 0.6 * min(pos, 1.0)
    return f"background: rgba(46, 160, 67, {alpha:.2f});"


def cell_html(cell: Cell, show_chance: bool) -> str:
    """A <td> with the value, its CI, n, and the chance shading."""
    if cell.fmt == "text":
        return f'<td class="text">{html_text(value_text(cell))}</td>'
    classes = "chance" if cell.at_or_below_chance() else ""
    body = html_text(value_text(cell))
    ci = ci_text(cell)
    if ci:
        body += f' <span class="ci">{html_text(ci)}</span>'
    if show_chance and cell.chance is not None and cell.show_chance:
        body += f' <span class="n">chance {html_text(chance_text(cell))}</span>'
    if cell.note:
        body += f' <span class="n">{html_text(cell.note)}</span>'
    title = f"n = {cell.n}" if cell.n is not None else ""
    return f'<td class="{classes}" style="{band_colour(cell)}" title="{html_text(title)}">{body}</td>'


def table_html(table: Table) -> str:
    """A <table> with caption, header (with shared chance levels) and shaded cells."""
    shared = [column_chance(table, i) for i in range(len(table.columns))]
    head = "".join(
        f"<th>{html_text(c)}" + (f'<br><span class="n">chance {html_text(s)}</span>' if s else "") + "</th>"
        for c, s in zip(table.columns, shared, strict=True)
    )
    rows = []
    for label, cells in table.rows:
        tds = "".join(cell_html(c, not shared[i]) for i, c in enumerate(cells))
        rows.append(f'<tr><td class="label">{html_text(label)}</td>{tds}</tr>')
    note = f'<p class="note">{_inline(table.note)}</p>' if table.note else ""
    return (
        f"<table><caption>{html_text(table.title)}</caption><thead><tr><th>{html_text(table.row_header)}"
        f"</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{note}"
    )


def render_html(sections: Sequence[ReportSection], title: str = "Evaluation report") -> str:
    """The whole report as one HTML document with inline CSS and inline PNGs."""
    body = [
        f"<h1>{html_text(title)}</h1>",
        '<p class="legend">Cells: value <span class="ci" style="border:0;width:auto">[95 % CI]</span>; '
        'shading from chance <span style="background:rgba(46,160,67,0.12)"></span> to best '
        '<span style="background:rgba(46,160,67,0.72)"></span>; hatched: at or below chance '
        '<span class="chance"></span>.</p>',
    ]
    toc = [f'<li><a href="#{s.anchor()}">{html_text(s.title)}</a></li>' for s in sections if s.level <= 2]
    body.append("<ul>" + "".join(toc) + "</ul>")
    for s in sections:
        level = max(2, min(6, s.level))
        body.append(f'<h{level} id="{s.anchor()}">{html_text(s.title)}</h{level}>')
        if s.text:
            body.append(markdown_to_html(s.text))
        body.extend(f'<div class="scroll">{table_html(t)}</div>' for t in s.tables)
        for f in s.figures:
            data = base64.b64encode(f.data()).decode("ascii")
            body.append(
                f'<figure><img alt="{html_text(f.caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html_text(f.caption)}</figcaption></figure>"
            )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html_text(title)}</title><style>{CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
