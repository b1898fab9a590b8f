"""A typed registry of what plugins provide, one table per kind (`harness.hookspecs.KINDS`: tasks, models,
metrics, builders, judges, reports, aggregations, importers, commands).

Factories may be given as "module:attr" strings and are imported only when used, so listing what is
available never imports heavy plugin code; when one is imported it is checked against its kind's base class
(`BASES`: a model is a `harness.api.Model` subclass, ...) or, for function kinds, for being callable. Lookups of
unknown names raise UnknownNameError with "did you mean" suggestions. A name registered twice (by two plugins,
two `--include_path` folders, or two files of one folder) is never a silent winner: the registry records a
`Conflict` naming both sources and `harness.plugins.loading.load_plugins` raises it (exit 2).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Optional, TypeVar

from harness import hookspecs
from harness.contract.builder import Builder
from harness.contract.importer import Importer
from harness.contract.model import Model
from harness.errors import ConfigError, UnknownNameError
from harness.plugins.extras import missing_dependency

KINDS = tuple(kind.name for kind in hookspecs.KINDS)
#: the class a registered factory of a kind must be (a subclass of); kinds not named here register callables
#: (tasks register YAML files; builder parts, names with a dot, are any class)
BASES: dict[str, type] = {"model": Model, "importer": Importer, "builder": Builder}

T = TypeVar("T")


@dataclass
class Entry(Generic[T]):
    """One registered thing and the plugin that registered it; `source` says where it came from (the plugin's
    module, or the YAML file of a task) for messages."""

    kind: str
    name: str
    factory: Any
    description: str = ""
    plugin: str = ""
    plugin_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def load(self) -> T:
        """The factory itself, importing it first when it was registered as "module:attr", checked against
        its kind (ConfigError naming the entry and its plugin when it is not what the kind registers)."""
        if isinstance(self.factory, str):
            self.factory = resolve_reference(self.factory, what=self.what())
        return check_factory(self, self.factory)

    def what(self) -> str:
        """"model 'NAME' (plugin 'P')": how messages name the entry."""
        return f"{self.kind} '{self.name}' (plugin '{self.plugin}')" if self.plugin else f"{self.kind} '{self.name}'"

    def origin(self) -> str:
        """Where the entry was registered: the plugin and its source (a task's YAML file)."""
        where = self.extra.get("path") or self.source
        return f"plugin '{self.plugin}'" + (f" ({where})" if where else "")


def check_factory(entry: Entry, factory: Any) -> Any:
    """`factory` when it fits the entry's kind (`BASES`, else any callable); ConfigError otherwise."""
    base = BASES.get(entry.kind) if "." not in entry.name else None
    if base is not None and isinstance(factory, type) and not issubclass(factory, base):
        raise ConfigError(
            f"{entry.what()}: {factory.__module__}.{factory.__qualname__} is not a subclass of "
            f"harness.api.{base.__name__}; derive it from {base.__name__}"
        )
    if not callable(factory):
        raise ConfigError(f"{entry.what()}: registered {type(factory).__name__}, not a class or function")
    return factory


@dataclass(frozen=True)
class Conflict:
    """A name two sources registered: neither wins."""

    kind: str
    name: str
    first: str
    second: str

    def __str__(self) -> str:
        return f"{self.kind} '{self.name}' is registered twice: by {self.first} and by {self.second}"


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


def _same_definition(a: Entry, b: Entry) -> bool:
    """Whether two registrations are one definition: the same task YAML file, or the same factory reference."""
    if "path" in a.extra and "path" in b.extra:
        return Path(a.extra["path"]).resolve() == Path(b.extra["path"]).resolve()
    return isinstance(a.factory, str) and a.factory == b.factory


class Table(Generic[T]):
    """The entries of one kind, by name."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.entries: dict[str, Entry[T]] = {}


class Registry:
    """Names to entries, one `Table` per kind."""

    def __init__(self) -> None:
        self._tables: dict[str, Table[Any]] = {k: Table(k) for k in KINDS}
        self.conflicts: list[Conflict] = []

    def add(self, entry: Entry) -> None:
        """Register an entry; a second registration of a name keeps the first and records a `Conflict`."""
        if entry.kind not in self._tables:
            raise ValueError(f"unknown registry kind '{entry.kind}' (expected one of {KINDS})")
        table = self._tables[entry.kind].entries
        first: Optional[Entry] = table.get(entry.name)
        if first is not None:
            if not _same_definition(first, entry):  # one YAML file reached twice (a plugin and --include_path)
                self.conflicts.append(Conflict(entry.kind, entry.name, first.origin(), entry.origin()))
            return
        table[entry.name] = entry

    def get(self, kind: str, name: str) -> Entry:
        """The entry for `name`, or UnknownNameError with suggestions."""
        try:
            return self._tables[kind].entries[name]
        except KeyError:
            raise UnknownNameError(kind, name, self._tables[kind].entries.keys()) from None

    def has(self, kind: str, name: str) -> bool:
        return name in self._tables[kind].entries

    def entries(self, kind: str) -> list[Entry]:
        """All entries of a kind, sorted by name."""
        table = self._tables[kind].entries
        return [table[n] for n in sorted(table)]

    def names(self, kind: str) -> list[str]:
        return sorted(self._tables[kind].entries)
