"""Task YAML files as read: safe YAML with lm-eval's `!function module.fn` tag, and `include:` chains deep-merged.

What both the task index (harness/config/index.py) and lm-eval's format (harness/config/lmms.py) read: a
`!function` reference is kept as the mapping {FUNCTION_TAG: "module:function"}, told apart from strings.
"""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from harness.errors import ConfigError

try:
    _Base = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _Base = yaml.SafeLoader

#: key of the mapping that stands for an lm-eval / lmms-eval `!function module.function` reference
FUNCTION_TAG = "!function"


class _Loader(_Base):  # type: ignore[misc, valid-type]
    """Safe YAML plus lm-eval's `!function utils.fn` tag (read as {"!function": "utils.fn"})."""


_Loader.add_constructor(FUNCTION_TAG, lambda loader, node: {FUNCTION_TAG: loader.construct_scalar(node)})


def function_ref(value: str, base_dir: Path) -> str:
    """A hook reference for lm-eval's `module.function`: `DIR/module.py:function` when that file sits next to
    the YAML that names it (lm-eval's rule), else the importable `module:function`."""
    module, _, func = value.strip().rpartition(".")
    if not module or not func:
        raise ConfigError(f"!function {value!r}: expected 'module.function'")
    candidate = base_dir / (module.replace(".", "/") + ".py")
    return f"{candidate.resolve()}:{func}" if candidate.exists() else f"{module}:{func}"


def _resolve_functions(data, base_dir: Path):
    if isinstance(data, dict):
        if set(data) == {FUNCTION_TAG}:
            return {FUNCTION_TAG: function_ref(str(data[FUNCTION_TAG]), base_dir)}
        return {k: _resolve_functions(v, base_dir) for k, v in data.items()}
    if isinstance(data, list):
        return [_resolve_functions(v, base_dir) for v in data]
    return data


def deep_merge(base: dict, over: dict) -> dict:
    """A copy of `base` with `over` merged into it recursively (dicts merge, everything else replaces)."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_yaml(path: Path) -> dict:
    """Parse one YAML file into a dict, naming the file on any error."""
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.load(f, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, got {type(data).__name__}")
    return _resolve_functions(data, Path(path).parent)


def load_with_includes(path: Path, _seen: tuple = ()) -> dict:
    """Read a YAML file and resolve its `include:` chain (relative to the including file)."""
    if path in _seen:
        raise ConfigError(f"{path}: include cycle through {' -> '.join(str(p) for p in _seen)}")
    data = read_yaml(path)
    inc = data.pop("include", None)
    if inc is None:
        return data
    bases = [inc] if isinstance(inc, str) else inc
    merged: dict = {}
    for b in bases:
        base_path = (path.parent / b).resolve()
        if not base_path.exists():
            raise ConfigError(f"{path}: field 'include': file '{b}' not found next to it")
        merged = deep_merge(merged, load_with_includes(base_path, _seen + (path,)))
    return deep_merge(merged, data)
