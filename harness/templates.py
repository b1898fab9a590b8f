"""Jinja2 prompt templates, always rendered in a sandbox (third-party folders cannot reach Python internals)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from harness.errors import ConfigError


@lru_cache(maxsize=64)
def _environment(base_dir: str) -> ImmutableSandboxedEnvironment:
    return ImmutableSandboxedEnvironment(
        loader=FileSystemLoader(base_dir),
        undefined=StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(
    base_dir: Path, template_file: str | None, text: str | None, context: dict[str, Any], what: str
) -> str:
    """Render a template file (relative to base_dir) or inline text with `context`."""
    env = _environment(str(base_dir))
    try:
        tpl = env.get_template(template_file) if template_file else env.from_string(text or "")
        return tpl.render(**context).strip()
    except TemplateError as exc:
        raise ConfigError(
            f"{what}: template {template_file or '(inline)'}: {type(exc).__name__}: {exc}"
        ) from exc
