"""A typed registry of what plugins provide, one table per kind (`harness.hookspecs.KINDS`: tasks, models,
metrics, builders, judges, reports, aggregations, importers, commands).

Factories may be given as "module:attr" strings and are imported only when used, so listing what is
available never imports heavy plugin code. Lookups of unknown names raise UnknownNameError with
"did you mean" suggestions.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from harness import hookspecs
from harness.errors import ConfigError, UnknownNameError
from harness.plugins.extras import missing_dependency

KINDS = tuple(kind.name for kind in hookspecs.KINDS)


@dataclass
class Entry:
    """One registered thing and the plugin that registered it."""

    kind: str
    name: str
    factory: Any
    description: str = ""
    plugin: str = ""
    plugin_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Any:
        """The factory itself, importing it first when it was registered as "module:attr"."""
        if isinstance(self.factory, str):
            self.factory = resolve_reference(self.factory, what=f"{self.kind} '{self.name}'")
        return self.factory


def resolve_reference(ref: str, what: str = "reference") -> Any:
    """Import "package.module:attr" (attr may be dotted)."""
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"{what}: '{ref}' is not of the form 'package.module:name'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and not (module_name == exc.name or module_name.startswith(exc.name + ".")):  # a dependency, not the module itself
            raise missing_dependency(what, exc) from exc
        raise ConfigError(f"{what}: cannot import module '{module_name}' ({exc})") from exc
    except ImportError as exc:
        raise ConfigError(f"{what}: cannot import module '{module_name}' ({exc})") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"{what}: module '{module_name}' has no attribute '{attr}'") from None
    return obj


class Registry:
    """Names to entries, per kind."""

    def __init__(self) -> None:
        self._entries: dict[str, dict[str, Entry]] = {k: {} for k in KINDS}
        self.conflicts: list[str] = []

    def add(self, entry: Entry) -> None:
        """Register an entry; a second registration of a name is kept out and recorded as a conflict."""
        if entry.kind not in self._entries:
            raise ValueError(f"unknown registry kind '{entry.kind}' (expected one of {KINDS})")
        table = self._entries[entry.kind]
        if entry.name in table and table[entry.name].plugin != entry.plugin:
            first = table[entry.name]
            self.conflicts.append(
                f"{entry.kind} '{entry.name}' registered by plugin '{entry.plugin}' is ignored: "
                f"plugin '{first.plugin}' registered it first"
            )
            return
        table[entry.name] = entry

    def get(self, kind: str, name: str) -> Entry:
        """The entry for `name`, or UnknownNameError with suggestions."""
        try:
            return self._entries[kind][name]
        except KeyError:
            raise UnknownNameError(kind, name, self._entries[kind].keys()) from None

    def has(self, kind: str, name: str) -> bool:
        return name in self._entries[kind]

    def entries(self, kind: str) -> list[Entry]:
        """All entries of a kind, sorted by name."""
        return [self._entries[kind][n] for n in sorted(self._entries[kind])]

    def names(self, kind: str) -> list[str]:
        return sorted(self._entries[kind])
