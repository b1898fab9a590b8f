"""Index task YAML files without importing plugin code: names, groups and the raw config of each task.

A YAML file defines a task (`task: name`) or a group (`group: name` with `task: [members]`). Files whose
name starts with `_` are bases only, used through `include: _base.yaml` (deep-merged, the including file
wins). `variants:` (a list of partial configs, each with its own `task:` name) registers one more task per
item, deep-merged over the file's config: CycliST's per-family tasks are variants of a tier's task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from harness.config.lmms import lmms_tags
from harness.config.yaml_files import deep_merge, load_with_includes
from harness.errors import ConfigError
from harness.plugins.registry import Entry


def _configs_of_file(path: Path, root: Path) -> list[dict]:
    data = load_with_includes(path, root)
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
    tagged: dict[str, tuple[Path, list[str]]] = {}
    root = (path if path.is_dir() else path.parent).resolve()
    for f in files:
        try:
            if not f.resolve().is_relative_to(root):
                raise ConfigError(
                    f"{f}: a symlink to {f.resolve()}, outside the task folder {root}; copy the file into the folder"
                )
            entries.extend(_entries_of_file(f, root, plugin, plugin_version))
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


def _inline_groups(cfg: dict, f: Path, depth: int = 0) -> list[dict]:
    """lm-eval's groups defined inside a group's `task` list (`- group: name` with its own `task` list and
    aggregate_metric_list), each as a config of its own (nested ones too), the list naming them instead."""
    if depth > 8:
        raise ConfigError(f"{f}: groups nested more than 8 deep in 'task' lists")
    out = []
    members = []
    for item in cfg["task"]:
        if isinstance(item, dict) and isinstance(item.get("group"), str) and isinstance(item.get("task"), list):
            out += [*_inline_groups(item, f, depth + 1), item]
            members.append(item["group"])
        else:
            members.append(item)
    cfg["task"] = members
    return out


def _entries_of_file(f: Path, root: Path, plugin: str, plugin_version: str) -> list[Entry]:
    entries = []
    configs = _configs_of_file(f, root)
    for cfg in list(configs):
        if "group" in cfg and isinstance(cfg.get("task"), list):
            configs[:0] = _inline_groups(cfg, f)
    for cfg in configs:
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
