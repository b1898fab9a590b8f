"""Jinja2 prompt templates, always rendered in a sandbox (third-party folders cannot reach Python internals).

Templates load from the task's folder only: a template or `{% include %}` that is a symlink resolving
outside that folder is refused, so a third-party task cannot pull `/etc/passwd` into a prompt (which an
API model would receive). Hook files are confined to the same folder (harness/plugins/references.py).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined, TemplateError, TemplateNotFound
from jinja2.sandbox import ImmutableSandboxedEnvironment

from harness.errors import ConfigError


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


@lru_cache(maxsize=64)
def _environment(base_dir: str) -> ImmutableSandboxedEnvironment:
    return ImmutableSandboxedEnvironment(
        loader=TaskFolderLoader(base_dir),
        undefined=StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


@lru_cache(maxsize=256)
def _inline(base_dir: str, text: str) -> Any:
    """An inline template compiled once (jinja2 caches templates loaded by name, not `from_string`)."""
    return _environment(base_dir).from_string(text)


def render(
    base_dir: Path, template_file: str | None, text: str | None, context: dict[str, Any], what: str
) -> str:
    """Render a template file (relative to base_dir) or inline text with `context`."""
    env = _environment(str(base_dir))
    try:
        tpl = env.get_template(template_file) if template_file else _inline(str(base_dir), text or "")
        return tpl.render(**context).strip()
    except TemplateError as exc:
        raise ConfigError(
            f"{what}: template {template_file or '(inline)'}: {type(exc).__name__}: {exc}"
        ) from exc
