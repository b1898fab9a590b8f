"""Resolve hook references: "package.module:function" or "file.py:function" next to a task's YAML."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.plugins.registry import resolve_reference

_file_modules: dict[str, Any] = {}


def load_hook(ref: str, base_dir: Path, what: str) -> Callable:
    """The callable named by `ref`; file references are imported under a private module name."""
    file_part, sep, func = ref.partition(":")
    if not sep or not func:
        raise ConfigError(f"{what}: hook '{ref}' must look like 'module:function' or 'file.py:function'")
    if file_part.endswith(".py"):
        path = (base_dir / file_part).resolve()
        if not path.exists():
            raise ConfigError(f"{what}: hook file '{file_part}' not found in {base_dir}")
        key = str(path)
        module = _file_modules.get(key)
        if module is None:
            name = "harness_hooks_" + hashlib.sha1(key.encode()).hexdigest()[:12]
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ConfigError(f"{what}: cannot import hook file {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                del sys.modules[name]
                raise ConfigError(
                    f"{what}: hook file {path} failed to import: {type(exc).__name__}: {exc}"
                ) from exc
            _file_modules[key] = module
        fn = getattr(module, func, None)
        if fn is None:
            raise ConfigError(f"{what}: hook file {path} has no function '{func}'")
        return fn
    return resolve_reference(ref, what=what)
