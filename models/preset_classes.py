"""Preset classes made from data-table rows: one subclass of an adapter per row, found by the row's name.

A plugin registers a preset as "<presets module>:<name>"; the presets module answers that attribute with
`preset_by_name` from its module-level `__getattr__`, so the name is written once, in the table.
"""

from __future__ import annotations

from typing import Any, TypeVar

Adapter = TypeVar("Adapter", bound=type)


def preset_subclass(base: Adapter, name: str, module: str, doc: str, **attributes: Any) -> Adapter:
    """The subclass of `base` named `name` in `module`, with its docstring and class attributes set."""
    members = {"__doc__": doc, "__module__": module, "__qualname__": name, "name": name, **attributes}
    return type(name, (base,), members)


def preset_by_name(classes: dict[str, Adapter], module: str, name: str) -> Adapter:
    """`classes[name]`, or the AttributeError a module raises for a name it does not have."""
    try:
        return classes[name]
    except KeyError:
        raise AttributeError(f"module {module!r} has no attribute {name!r} (no such preset)") from None
