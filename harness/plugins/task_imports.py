"""Which modules a task's hook files import, so a task whose hooks need a package that is not installed is
refused before the run starts (naming the extra that installs it) instead of failing on every sample.

The hook files are read, not run: every `import` / `from ... import` in them counts, also one inside a function
(lmms-eval's lvbench imports `lmms_eval` only when it scores), except imports guarded by a `try` that catches
ImportError (the file copes without them) and modules that are files or folders beside the hook file.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.plugins.extras import MissingDependencyError, missing_dependency

_FILE_REF = re.compile(r"^(?P<file>.+\.py):[A-Za-z_]\w*$")
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def hook_files(config: Any) -> list[Path]:
    """The `file.py` of every file hook reference (`/dir/utils.py:fn`) anywhere in a task's config."""
    found: dict[str, None] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            m = _FILE_REF.match(value)
            if m:
                found[m.group("file")] = None

    walk(config.model_dump(mode="python") if hasattr(config, "model_dump") else config)
    return [Path(f) for f in found]


def _catches_import_error(node: ast.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            return True
        names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS for n in names):
            return True
    return False


def _imports(node: ast.AST) -> Iterator[str]:
    """Top-level module names imported under `node`, skipping the bodies of ImportError-guarded `try`s."""
    if isinstance(node, ast.Try) and _catches_import_error(node):
        for child in [*node.handlers, *node.orelse, *node.finalbody]:
            yield from _imports(child)
        return
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name.split(".")[0]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        yield node.module.split(".")[0]
    for child in ast.iter_child_nodes(node):
        yield from _imports(child)


def missing_modules(path: Path) -> list[str]:
    """Modules `path` imports that are neither installed nor beside it (empty when it cannot be parsed:
    importing it will then report the real problem)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeError, ValueError):
        return []
    out = []
    for name in dict.fromkeys(_imports(tree)):
        if name == "__future__" or (path.parent / f"{name}.py").exists() or (path.parent / name).is_dir():
            continue
        try:
            if importlib.util.find_spec(name) is None:
                out.append(name)
        except (ImportError, ValueError):
            out.append(name)
    return out


def check_task_imports(task_name: str, config: Any) -> None:
    """Raise MissingDependencyError (exit 3) naming the first missing module, the file importing it and the
    extra (or package) that installs it."""
    for path in hook_files(config):
        missing = missing_modules(path)
        if missing:
            raise _refusal(task_name, path, missing)


def _refusal(task_name: str, path: Path, missing: list[str]) -> MissingDependencyError:
    exc = ModuleNotFoundError(f"No module named '{missing[0]}'", name=missing[0])
    others = f" (also: {', '.join(missing[1:])})" if len(missing) > 1 else ""
    return missing_dependency(f"task '{task_name}' ({path} imports it{others})", exc)

