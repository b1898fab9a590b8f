"""Escaping of text the harness did not write (model, task and metric names, sample ids, model outputs, paths,
messages) for each output format, one function per format; every writer uses these and no other.

- Markdown (`markdown_text`): backslash-escapes the characters that start inline markup or raw HTML
  (CommonMark: any escaped ASCII punctuation is literal), so a name such as `<img src=x onerror=...>` or
  `[click](http://...)` shows as text in report.md, summary.md and leaderboard.md wherever it is rendered;
  newlines and control characters cannot break a table row or a heading.
- HTML (`html_text`): `html.escape` with quotes, control characters removed.
- CSV (`csv_cell`): OWASP's rule against formula injection: a text cell starting with `=`, `+`, `-`, `@`, tab
  or carriage return gets a leading `'`, so a spreadsheet shows it instead of evaluating it; control characters
  other than newline and tab are shown as `\\xNN` (a bare carriage return would split the row).
- Terminal (`terminal_text`): control characters (ANSI escape sequences, carriage returns, backspaces, bells)
  and Unicode bidirectional overrides are shown as visible `\\xNN` / `\\uNNNN` escapes; newlines and tabs stay.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

#: characters that begin raw HTML, a link or image, an entity, a code span or a table cell in Markdown
#: (escaped with a backslash; emphasis characters are left alone: they change the look, not what is shown)
MARKDOWN_SPECIAL = "\\`[]<>&|"
#: what OWASP lists as the first character of a formula a spreadsheet would evaluate
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

# C0 and C1 controls and DEL, and the Unicode bidirectional controls (a name that reverses what follows it)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_NEWLINE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MARKDOWN_SPECIAL = re.compile("([" + re.escape(MARKDOWN_SPECIAL) + "])")


def _visible(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: Any) -> str:
    """`text` safe to print on a terminal: control sequences shown as `\\xNN`, newlines and tabs kept."""
    return _CONTROL.sub(_visible, str(text))


def markdown_text(text: Any) -> str:
    """`text` as literal Markdown inline text (one line): markup characters escaped, newlines as spaces,
    control characters shown as `\\xNN`."""
    one_line = re.sub(r"\r\n|[\n\r]", " ", str(text))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _CONTROL_OR_NEWLINE.sub(_visible, one_line))


def markdown_code(text: Any) -> str:
    """`text` for the inside of a fenced code block (literal in Markdown): no line can close the fence, and
    control characters are shown as `\\xNN`."""
    return terminal_text(str(text).replace("```", "'''").replace("~~~", "'''"))


def html_text(text: Any) -> str:
    """`text` for an HTML element or attribute: `& < > " '` as entities, control characters as `\\xNN`."""
    return html.escape(terminal_text(text), quote=True)


def csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows rather than evaluates (numbers pass as they are)."""
    if not isinstance(value, str):
        return value
    text = "'" + value if value.startswith(CSV_FORMULA_START) else value
    return _CONTROL.sub(_visible, text)  # a bare carriage return would end the row (the csv module leaves it)


def table_cell(text: Any) -> str:
    """`text` for a cell of a Markdown-style table printed on a terminal: `|` escaped, newlines as spaces,
    control characters shown as `\\xNN` (the rest left readable: such a table is not rendered)."""
    return terminal_text(re.sub(r"\r\n|[\n\r]", " ", str(text))).replace("|", "\\|")


#: a Markdown backslash escape of one of MARKDOWN_SPECIAL (what `markdown_text` writes)
MARKDOWN_ESCAPE = re.compile(r"\\([" + re.escape(MARKDOWN_SPECIAL) + "])")


class TerminalFormatter(logging.Formatter):
    """A log formatter whose lines go through `terminal_text` (a logged name cannot move the cursor)."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal_text(super().format(record))
