"""Index task YAML files without importing plugin code: names, groups and the raw config of each task.

A YAML file defines a task (`task: name`) or a group (`group: name` with `task: [members]`). Files whose
name starts with `_` are bases only, used through `include: _base.yaml` (deep-merged, the including file
wins). `variants:` (a list of partial configs, each with its own `task:` name) registers one more task per
item, deep-merged over the file's config: CycliST's per-family tasks are variants of a tier's task.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Optional

import yaml

from harness.errors import ConfigError
from harness.plugins.registry import Entry

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


def _configs_of_file(path: Path) -> list[dict]:
    data = load_with_includes(path)
    variants = data.pop("variants", None) or []
    configs = [data]
    if not isinstance(variants, list):
        raise ConfigError(f"{path}: field 'variants': expected a list of partial task configs")
    for i, v in enumerate(variants):
        if not isinstance(v, dict) or "task" not in v:
            raise ConfigError(f"{path}: field 'variants[{i}]': expected a mapping with a 'task' name")
        merged = deep_merge(data, v)
        merged["variant_of"] = data.get("task")
        configs.append(merged)
    return configs


def index_task_path(
    path: Path, plugin: str = "", plugin_version: str = "", errors: Optional[list[str]] = None
) -> list[Entry]:
    """Entries for every task and group defined under `path` (a YAML file or a folder, recursively).

    With `errors` (a list), a file that cannot be read or indexed is reported there (its message names the
    file) and the folder's other files still register; without it the first bad file raises ConfigError.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.yaml") if not p.name.startswith("_"))
    elif path.exists():
        files = [path]
    else:
        raise ConfigError(f"task path {path} does not exist")
    from harness.config.lmms import lmms_tags  # noqa: PLC0415 - lmms imports this module

    entries: list[Entry] = []
    tagged: dict[str, tuple[Path, list[str]]] = {}
    for f in files:
        try:
            entries.extend(_entries_of_file(f, plugin, plugin_version))
        except ConfigError as exc:
            if errors is None:
                raise
            errors.append(str(exc))
    names = {e.name for e in entries}
    for e in list(entries):
        if e.extra["group"]:
            continue
        for tag in lmms_tags(e.extra["config"]):
            tagged.setdefault(tag, (Path(e.extra["path"]), []))[1].append(e.name)
    for tag, (f, members) in sorted(tagged.items()):
        if tag not in names:  # lm-eval's `group:` / `tag:` on tasks: the tag runs as a group of them
            cfg = {"group": tag, "task": members, "description": f"tasks tagged '{tag}'"}
            extra = {"path": str(f), "config": cfg, "group": True}
            entries.append(Entry("task", tag, None, cfg["description"], plugin, plugin_version, extra))
    return entries


def _entries_of_file(f: Path, plugin: str, plugin_version: str) -> list[Entry]:
    entries = []
    for cfg in _configs_of_file(f):
        if "group" in cfg and "task" in cfg and isinstance(cfg["task"], list):
            name, is_group = cfg["group"], True
        elif isinstance(cfg.get("task"), str):
            name, is_group = cfg["task"], False
        else:
            raise ConfigError(f"{f}: expected a 'task: <name>' (or 'group: <name>' with a 'task' list)")
        extra = {"path": str(f), "config": cfg, "group": is_group}
        entries.append(
            Entry("task", str(name), None, cfg.get("description", ""), plugin, plugin_version, extra)
        )
    return entries
