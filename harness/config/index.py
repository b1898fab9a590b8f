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
from harness.registry import Entry

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _Loader = yaml.SafeLoader


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
    return data


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
    entries: list[Entry] = []
    for f in files:
        try:
            entries.extend(_entries_of_file(f, plugin, plugin_version))
        except ConfigError as exc:
            if errors is None:
                raise
            errors.append(str(exc))
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
