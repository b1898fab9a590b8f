"""Plugin discovery: built-in plugins from the source tree, entry points of the group "harness",
`--include_path` folders, and HARNESS_PLUGINS.

Built-in plugins (`plugin.py` and `*_plugin.py` modules of the packages `harness_tasks`, `harness_models`,
`harness_metrics` and `harness_builders`, the folders tasks/, models/, metrics/ and builders/ of the checkout)
are found by scanning those packages' folders wherever they are installed, so a checkout that was changed but
not reinstalled still sees exactly its own plugins. Each keeps its entry-point name from setup.cfg when an entry
point names it (no double registration); an entry point of this project naming a module that no longer
exists in the tree (a stale install) is skipped. Third-party plugins keep loading through entry points.

The core's own subcommands come from one more plugin, `harness.cli.builtin_commands` (named "harness"), loaded
first and always: HARNESS_PLUGINS restricts the others, never the command line itself.

Each plugin's hooks are called one plugin at a time, so what a plugin registered is attributed to it and a
plugin that fails (at import, or inside a hook) is reported by name while the others still load.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

import pluggy

from harness import __version__, hookspecs
from harness.config.index import index_task_path
from harness.errors import ConfigError, PluginConflictError
from harness.plugins.registry import Entry, Registry

log = logging.getLogger("harness.plugins.loading")

ENTRY_POINT_GROUP = "harness"
PROJECT_DIST = "video-harness"
SOURCE_PACKAGES = ("harness_tasks", "harness_models", "harness_metrics", "harness_builders")
ENV_VAR = "HARNESS_PLUGINS"
CORE_PLUGIN = "harness"  # the name `ls plugins` shows for the core's own registrations (its subcommands)
CORE_MODULE = "harness.cli.builtin_commands"


@dataclass
class PluginInfo:
    """What `harness ls plugins` shows for one plugin."""

    name: str
    version: str
    source: str
    module: str = ""
    registered: dict[str, list[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


@dataclass
class PluginState:
    """The registry and the plugins that filled it."""

    registry: Registry
    plugins: list[PluginInfo]

    def broken(self) -> list[PluginInfo]:
        return [p for p in self.plugins if p.errors]

    def empty_broken(self) -> list[PluginInfo]:
        """Broken plugins that registered nothing: a missing dependency, or an install without their files."""
        return [p for p in self.broken() if not p.registered]


def allowed_plugins(env: Optional[dict] = None) -> Optional[set[str]]:
    """Plugin names HARNESS_PLUGINS allows (comma-separated), or None when it is unset (all load)."""
    raw = (env if env is not None else os.environ).get(ENV_VAR)
    if raw is None or not raw.strip():
        return None
    return {x.strip() for x in raw.split(",") if x.strip()}


def _entry_points() -> list[metadata.EntryPoint]:
    eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    seen, out = set(), []
    for ep in sorted(eps, key=lambda e: e.name):
        if ep.name not in seen:
            seen.add(ep.name)
            out.append(ep)
    return out


def installed_plugins() -> tuple[tuple[str, ...], tuple[tuple[str, str, str, str], ...]]:
    """What `load_plugins` would find now, without importing any of it: the built-in plugin modules and each
    entry point of the group "harness" as (name, value, distribution, version). Callers that keep a loaded
    registry key it on this, so installing or removing a plugin (a new entry point, a changed sys.path) is seen."""
    eps = tuple((ep.name, ep.value, _dist_name(ep), _version_of(ep)) for ep in _entry_points())
    return tuple(source_tree_plugins()), eps


def _package_folder(name: str) -> Optional[Path]:
    """The folder the package `name` imports from (the checkout's folder in an editable install), or None."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None


def source_tree_plugins() -> list[str]:
    """Module names of the built-in plugins found in the built-in packages' folders (sorted)."""
    found = []
    for pkg in SOURCE_PACKAGES:
        base = _package_folder(pkg)
        if base is None or not (base / "__init__.py").exists():
            continue
        for f in sorted(base.rglob("*plugin.py")):
            if f.name != "plugin.py" and not f.name.endswith("_plugin.py"):
                continue
            rel = f.relative_to(base).with_suffix("")
            if all((base / Path(*rel.parts[:i]) / "__init__.py").exists() for i in range(1, len(rel.parts))):
                found.append(".".join((pkg, *rel.parts)))
    return sorted(found)


def _dist_name(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return (dist.metadata["Name"] or "") if dist is not None else ""


def _is_project_entry_point(ep: metadata.EntryPoint) -> bool:
    return _dist_name(ep).replace("_", "-").lower() == PROJECT_DIST


def _version_of(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return dist.version if dist is not None else "unknown"


def _make_register(registry: Registry, info: PluginInfo, kind: str, base_dir: Optional[Path]):
    def register(name: Any, factory: Any = None, description: str = "", **extra: Any) -> None:
        if kind == "task":
            path = Path(name)
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            entries = index_task_path(path, plugin=info.name, plugin_version=info.version, errors=info.errors)
            if not entries and not info.errors:  # an install that did not ship the plugin's files
                raise ConfigError(f"task path {path} holds no task YAML (was the plugin installed with its data files?)")
            for entry in entries:
                registry.add(entry)
                info.registered.setdefault("task", []).append(entry.name)
            return
        if factory is None:
            raise TypeError(f"register({name!r}) for a {kind} needs a factory (a class or 'module:attr')")
        entry = Entry(kind, str(name), factory, description, info.name, info.version, extra, info.source)
        registry.add(entry)
        info.registered.setdefault(kind, []).append(str(name))

    return register


def _call_hooks(
    pm: pluggy.PluginManager, registry: Registry, infos: dict[str, PluginInfo], kinds: Optional[Sequence[str]]
) -> None:
    for kind in hookspecs.KINDS:
        if kinds is not None and kind.name not in kinds:
            continue
        for impl in getattr(pm.hook, kind.hook).get_hookimpls():
            info = infos[impl.plugin_name]
            module = impl.plugin
            base = Path(module.__file__).parent if getattr(module, "__file__", None) else None
            try:
                impl.function(register=_make_register(registry, info, kind.name, base))
            except Exception as exc:  # a broken plugin must not stop the others
                info.errors.append(f"{kind.hook} raised {type(exc).__name__}: {exc}")
                log.warning("plugin '%s': %s raised %s: %s", info.name, kind.hook, type(exc).__name__, exc)


def _index_include_paths(
    include_paths: Sequence[str | os.PathLike], registry: Registry, infos: dict[str, PluginInfo]
) -> None:
    """Register the tasks of every --include_path folder, each as a plugin `include:PATH` of its own."""
    for raw in include_paths:
        path = Path(raw)
        info = PluginInfo(name=f"include:{path}", version="local", source="--include_path", module=str(path))
        infos[info.name] = info
        if not path.exists():
            info.errors.append(f"--include_path {path} does not exist")
            continue
        try:  # a bad file is reported by name; the folder's other tasks still register
            for entry in index_task_path(path, plugin=info.name, plugin_version="local", errors=info.errors):
                registry.add(entry)
                info.registered.setdefault("task", []).append(entry.name)
        except Exception as exc:
            info.errors.append(f"{type(exc).__name__}: {exc}")


def load_plugins(
    include_paths: Sequence[str | os.PathLike] = (),
    modules: Iterable[ModuleType | str] = (),
    env: Optional[dict] = None,
    use_entry_points: bool = True,
    kinds: Optional[Sequence[str]] = None,
) -> PluginState:
    """Load every plugin and return the filled registry with per-plugin reports.

    `use_entry_points=False` loads neither the built-in nor the installed plugins (only the core's commands,
    `modules` and `include_paths`), for a registry with nothing but what the caller names. `kinds` (registry
    kinds, e.g. ("command",)) calls only those kinds' hooks: the command line finds its subcommands without
    indexing every task YAML."""
    registry = Registry()
    pm = pluggy.PluginManager("harness")
    pm.add_hookspecs(hookspecs)
    allowed = allowed_plugins(env)
    infos: dict[str, PluginInfo] = {}

    def add_module(name: str, version: str, source: str, loader) -> None:
        info = PluginInfo(name=name, version=version, source=source)
        infos[name] = info
        try:
            module = loader()
            info.module = getattr(module, "__name__", str(module))
            pm.register(module, name=name)
            log.debug("plugin '%s' %s loaded from %s", name, version, source)
        except Exception as exc:  # reported by name; the others still load
            info.errors.append(f"failed to load: {type(exc).__name__}: {exc}")
            log.warning("plugin '%s' failed to load: %s: %s", name, type(exc).__name__, exc)

    add_module(CORE_PLUGIN, __version__, "core", lambda: importlib.import_module(CORE_MODULE))
    if use_entry_points:
        builtin = source_tree_plugins()
        eps = _entry_points()
        names = {ep.module: ep.name for ep in eps if ep.module in builtin}
        for module_name in builtin:
            name = names.get(module_name, module_name)
            if allowed is not None and name not in allowed:
                continue
            add_module(
                name,
                __version__,
                f"source tree {module_name}",
                lambda m=module_name: importlib.import_module(m),
            )
        for ep in eps:
            if ep.module in builtin or (allowed is not None and ep.name not in allowed):
                continue
            if _is_project_entry_point(ep):
                log.debug("entry point '%s' (%s) is not in the source tree: stale install, skipped", ep.name, ep.value)
                continue
            add_module(ep.name, _version_of(ep), f"entry point {ep.value}", ep.load)
    for mod in modules:
        name = mod if isinstance(mod, str) else mod.__name__
        if allowed is not None and name not in allowed:
            continue
        add_module(
            name, "local", "module", (lambda m=mod: importlib.import_module(m) if isinstance(m, str) else m)
        )

    _call_hooks(pm, registry, infos, kinds)

    if kinds is None or "task" in kinds:
        _index_include_paths(include_paths, registry, infos)
    if registry.conflicts:
        raise PluginConflictError(
            "; ".join(map(str, registry.conflicts))
            + ". Rename one, or leave one source out (its --include_path, or HARNESS_PLUGINS to pick plugins)"
        )
    return PluginState(registry=registry, plugins=list(infos.values()))
