"""Resolve hook references: "package.module:function" (an installed module) or "file.py:function" in a task's folder.

A file reference is confined to the task folder (the folder of the task's YAML), as its templates are: a path
with `..`, an absolute path outside the folder, or a symlink resolving out of it is refused with a
ConfigError naming the task, the field and the fix, before anything is imported. Code elsewhere is named by
its dotted import path, i.e. installed like any other plugin. (lm-eval's `!function utils.fn` is resolved to
the `utils.py` beside the YAML that names it, an absolute path inside the folder.)
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Optional

from harness.errors import ConfigError
from harness.plugins.registry import resolve_reference

#: what to do instead of pointing a hook at a file outside the task folder
CONFINEMENT_FIX = (
    "put the file inside the task folder and name it relative to the YAML ('hooks.py:function'), or install "
    "the code as a package and name it by its dotted import path ('package.module:function')"
)



def _split(ref: str, what: str) -> tuple[str, str]:
    file_part, sep, func = str(ref).partition(":")
    if not sep or not func:
        raise ConfigError(f"{what}: hook '{ref}' must look like 'module:function' or 'file.py:function'")
    return file_part, func


def hook_file(ref: str, base_dir: Path, what: str) -> Optional[Path]:
    """The file a "file.py:function" reference names (resolved, inside the task folder `base_dir`), or None
    for a dotted module reference. ConfigError when the file lies outside the folder or does not exist."""
    file_part, _ = _split(ref, what)
    if not file_part.endswith(".py"):
        return None
    folder = Path(base_dir).resolve()
    given = Path(file_part)
    if not given.is_absolute() and ".." in given.parts:
        raise ConfigError(f"{what}: hook '{ref}' names a file above the task folder {folder} ('..'); {CONFINEMENT_FIX}")
    real = (given if given.is_absolute() else folder / given).resolve()
    if not real.is_relative_to(folder):
        how = "is an absolute path" if given.is_absolute() else f"is a symlink to {real},"
        raise ConfigError(f"{what}: hook '{ref}' {how} outside the task folder {folder}; {CONFINEMENT_FIX}")
    if not real.is_file():
        raise ConfigError(f"{what}: hook file '{file_part}' not found in {folder}")
    return real


def load_hook(ref: str, base_dir: Path, what: str) -> Callable:
    """The callable named by `ref`; file references (confined to `base_dir`) are imported once per process
    under a private module name derived from the file's path (`sys.modules` is the registry of what is
    loaded: no store of our own)."""
    path = hook_file(ref, base_dir, what)
    if path is None:
        return resolve_reference(ref, what=what)
    func = _split(ref, what)[1]
    name = "harness_hooks_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ConfigError(f"{what}: cannot import hook file {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise ConfigError(f"{what}: hook file {path} failed to import: {type(exc).__name__}: {exc}") from exc
    fn = getattr(module, func, None)
    if fn is None:
        raise ConfigError(f"{what}: hook file {path} has no function '{func}'")
    return fn
