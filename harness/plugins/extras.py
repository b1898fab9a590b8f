"""Which optional extra provides a missing module, so "No module named 'torch'" becomes a fix to run.

The answer comes from the installed package's own metadata (its `extra == "..."` requirements), so it
stays right when setup.cfg changes; a module no extra declares gets the plain `pip install` advice.
"""

from __future__ import annotations

import configparser
import re
from importlib import metadata
from pathlib import Path
from typing import Optional

from harness.errors import EXIT_RUNTIME, HarnessError

DIST = "video-harness"


class MissingDependencyError(HarnessError):
    """A model, judge or plugin needs a package that is not installed; the message says what to install."""

    exit_code = EXIT_RUNTIME


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _checkout_requirements() -> list[str]:
    """The extras of the source checkout this module runs from (its setup.cfg), as metadata requirement
    strings: an editable install whose metadata predates an extra still names it."""
    cfg = Path(__file__).resolve().parents[2] / "setup.cfg"
    parser = configparser.ConfigParser()
    try:
        parser.read(cfg, encoding="utf-8")
        items = parser.items("options.extras_require") if parser.has_section("options.extras_require") else []
    except (configparser.Error, OSError):
        return []
    return [
        f'{line.split(";")[0].strip()}; extra == "{extra}"'
        for extra, body in items
        for line in body.splitlines()
        if line.strip()
    ]


def extra_for(module: str) -> Optional[str]:
    """The first extra of video-harness that requires `module`'s top-level package (e.g. torch -> 'hf')."""
    top = _norm(module.split(".")[0])
    try:
        requires = metadata.requires(DIST) or []
    except metadata.PackageNotFoundError:
        requires = []
    for req in [*requires, *_checkout_requirements()]:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)[^;]*;\s*extra\s*==\s*['\"]([^'\"]+)['\"]", req)
        if m and _norm(m.group(1)) == top and m.group(2) != "all":
            return m.group(2)
    return None


def missing_dependency(what: str, exc: ModuleNotFoundError) -> MissingDependencyError:
    """The error to raise when `what` (e.g. "model 'llava_video_7b'") failed to import `exc.name`."""
    module = exc.name or str(exc)
    extra = extra_for(module)
    if extra:
        fix = f'pip install -e ".[{extra}]" in a checkout, or pip install "{DIST}[{extra}]"'
        return MissingDependencyError(
            f"{what} needs the '{extra}' extra (module '{module}' is not installed): {fix}"
        )
    return MissingDependencyError(
        f"{what} needs the module '{module}', which is not installed: pip install {module.split('.')[0]}"
    )
