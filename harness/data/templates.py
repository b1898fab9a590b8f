"""Jinja2 prompt templates, always rendered in a bounded sandbox (third-party folders cannot reach Python
internals, leak object reprs, or hang or exhaust the run).

Templates load from the task's folder only: a template or `{% include %}` that is a symlink resolving
outside that folder is refused, so a third-party task cannot pull `/etc/passwd` into a prompt (which an
API model would receive). Hook files are confined to the same folder (harness/plugins/references.py).

Each render is bounded (a `SecurityError`, reported as the task's ConfigError): at most MAX_RENDER_STEPS
steps (loop iterations and calls: every `{% for %}` iterates through a counter the syntax tree is given, and
the sandbox counts each call, so a nested `range` or a macro that forks ends) and MAX_RENDER_S seconds, MAX_OUTPUT_CHARS of output and of any string
or list built by `*`, `+`, `%` or `replace` (string multiplication), and no filter or output that shows an
object rather than data (`format` and `pprint` are gone; printing a method or class is refused).
"""

from __future__ import annotations

import operator
import os
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined, TemplateError, TemplateNotFound, nodes
from jinja2.compiler import CodeGenerator
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from harness.errors import ConfigError

#: the most steps (loop iterations and calls) one render may take (a prompt needs tens)
MAX_RENDER_STEPS = 200_000
#: the longest one render may take, in seconds
MAX_RENDER_S = 2.0
#: the longest prompt, or string / list built inside a template, in characters (items)
MAX_OUTPUT_CHARS = 1_000_000
#: values a template may print or format: data, never objects (whose repr shows types and addresses)
_PLAIN = (str, int, float, bool, type(None), list, tuple, dict, set, frozenset)
_BINOPS = {"*": operator.mul, "**": operator.pow, "+": operator.add, "%": operator.mod}


class TaskFolderLoader(FileSystemLoader):
    """A FileSystemLoader that never follows a symlink out of the task folder."""

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        root = os.path.realpath(self.searchpath[0])
        real = os.path.realpath(filename)
        if os.path.commonpath([root, real]) != root:
            raise TemplateNotFound(
                f"{template} (a symlink to {real}, outside the task folder {root}; templates and "
                "includes must live in the task folder: copy the file there instead of linking it)"
            )
        return source, filename, uptodate


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else 0


def _check_plain(value: Any, depth: int = 0) -> Any:
    """`value` when it is plain data (recursively), else SecurityError: its repr would leak an object."""
    if isinstance(value, StrictUndefined) or depth > 20:
        return value
    if not isinstance(value, _PLAIN):
        raise SecurityError(f"a template may print data only, not a {type(value).__name__} object")
    if isinstance(value, dict):
        for k, v in list(value.items())[:10_000]:
            _check_plain(k, depth + 1)
            _check_plain(v, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in list(value)[:10_000]:
            _check_plain(v, depth + 1)
    return value


def _bounded(result_size: int, what: str) -> None:
    if result_size > MAX_OUTPUT_CHARS:
        raise SecurityError(f"{what} would build {result_size} items, over the limit of {MAX_OUTPUT_CHARS}")


def _replace(s: Any, old: str, new: str, count: Any = None) -> str:
    text = str(_check_plain(s))
    n = text.count(old) if old else len(text) + 1
    _bounded(len(text) + n * len(str(new)), "replace")
    return text.replace(old, new) if count is None else text.replace(old, new, count)


def _string(value: Any) -> str:
    return str(_check_plain(value))


def _join(items: tuple) -> str:
    """The `~` operator, bounded: jinja's own str_join, with the result size checked first."""
    parts = [str(_check_plain(i)) for i in items]
    _bounded(sum(map(len, parts)), "concatenation")
    return "".join(parts)


class _Budget(threading.local):
    """The steps (loop iterations, calls, attribute reads) left to the render running in this thread."""

    steps = 0
    deadline = 0.0

    def start(self) -> None:
        self.steps, self.deadline = 0, time.monotonic() + MAX_RENDER_S

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_RENDER_STEPS:
            raise SecurityError(f"the template ran over {MAX_RENDER_STEPS} steps (a loop too long?)")
        if self.steps % 256 == 0 and time.monotonic() > self.deadline:
            raise SecurityError(f"the template ran over {MAX_RENDER_S} s")


_budget = _Budget()


def _counted(iterable: Any) -> Any:
    """What every `{% for %}` iterates: the same items, each a step of the render's budget."""
    for item in iterable:
        _budget.step()
        yield item


class _BoundedCodeGenerator(CodeGenerator):
    """Jinja's code generator with `a ~ b` compiled to the environment's bounded join."""

    def visit_Concat(self, node, frame) -> None:
        self.write("environment.bounded_join((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox with size checks on the operators that can grow a value."""

    intercepted_binops = frozenset(_BINOPS)
    code_generator_class = _BoundedCodeGenerator
    bounded_join = staticmethod(_join)

    def _parse(self, source: str, name: Any, filename: Any) -> nodes.Template:
        """The template's syntax tree with every loop's iterable counted (`_counted`)."""
        tree = super()._parse(source, name, filename)
        for loop in tree.find_all(nodes.For):
            loop.iter = nodes.Filter(loop.iter, "counted_loop", [], [], None, None, lineno=loop.lineno)
        return tree

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _budget.step()  # every call in a template (a macro calling itself too) is a step
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Any:
        """`str.format` / `format_map` with its arguments checked to be data and its result bounded."""
        fmt = super().wrap_str_format(value)
        if fmt is None:
            return None

        def checked(*args: Any, **kwargs: Any) -> str:
            for arg in [*args, *kwargs.values()]:
                _check_plain(arg)
            out = fmt(*args, **kwargs)
            _bounded(len(out), "format")
            return out

        return checked

    def call_binop(self, context, operator_: str, left: Any, right: Any) -> Any:
        if operator_ == "**" and isinstance(right, (int, float)) and abs(right) > 64:
            raise SecurityError(f"exponent {right} is over the template limit of 64")
        if operator_ == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(times, int) and _size(seq):
                    _bounded(_size(seq) * max(times, 0), "multiplication")
        if operator_ == "+":
            _bounded(_size(left) + _size(right), "concatenation")
        if operator_ == "%" and isinstance(left, str):
            for arg in right if isinstance(right, tuple) else (right,):
                _check_plain(arg)
            _bounded(
                len(left) + sum(len(str(a)) for a in (right if isinstance(right, tuple) else (right,))), "%"
            )
        return _BINOPS[operator_](left, right)


@lru_cache(maxsize=64)
def _environment(base_dir: str) -> BoundedSandbox:
    env = BoundedSandbox(
        loader=TaskFolderLoader(base_dir),
        undefined=StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
        finalize=_check_plain,
    )
    for name in ("format", "pprint", "center", "wordwrap", "indent", "xmlattr", "urlize", "filesizeformat"):
        env.filters.pop(name, None)  # format / pprint show reprs; the others grow text by an argument
    env.filters["replace"] = _replace
    env.filters["string"] = _string
    env.filters["counted_loop"] = _counted
    env.globals.pop("lipsum", None)
    return env


@lru_cache(maxsize=256)
def _inline(base_dir: str, text: str) -> Any:
    """An inline template compiled once (jinja2 caches templates loaded by name, not `from_string`)."""
    return _environment(base_dir).from_string(text)


def _bounded_render(tpl: Any, context: dict[str, Any]) -> str:
    """`tpl` rendered under a step, time and output budget (loops and calls count steps, `_Budget`)."""
    _budget.start()
    out, total = [], 0
    for chunk in tpl.generate(**context):
        total += len(chunk)
        _bounded(total, "the prompt")
        out.append(chunk)
    return "".join(out)


def render(
    base_dir: Path, template_file: str | None, text: str | None, context: dict[str, Any], what: str
) -> str:
    """Render a template file (relative to base_dir) or inline text with `context`."""
    env = _environment(str(base_dir))
    try:
        tpl = env.get_template(template_file) if template_file else _inline(str(base_dir), text or "")
        return _bounded_render(tpl, context).strip()
    except RecursionError:
        raise ConfigError(
            f"{what}: template {template_file or '(inline)'}: calls itself too deeply"
        ) from None
    except TemplateError as exc:
        raise ConfigError(
            f"{what}: template {template_file or '(inline)'}: {type(exc).__name__}: {exc}"
        ) from exc
