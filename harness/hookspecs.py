"""The plugin hook specifications: one hook per kind of thing a plugin registers, each receiving a `register`
callback.

`KINDS` is the one table of those kinds: the registry (`harness.plugins.registry`), the loader
(`harness.plugins.loading`), `python -m harness ls` and the hooks below all read it, so adding a kind is one row.
A plugin is a module with functions decorated by `hookimpl` (pluggy marker "harness") named after the hooks
(`register_tasks`, `register_models`, ...); it may implement any subset. Registering by string reference
("package.module:Name") keeps heavy imports lazy.

A task's own hooks (the `hooks:` of its YAML: `build_request`, `target`, `parse`, `score`, ...) are plain
functions, each always called with the same arguments (docs/plugins.md lists them); the core never inspects a
hook's signature per sample. `parse` is called as `parse(response, doc, judge)`; the documented two-parameter
form `parse(response, doc)` keeps working, adapted once when the task loads the hook
(`harness.data.task.with_judge`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pluggy

hookspec = pluggy.HookspecMarker("harness")
hookimpl = pluggy.HookimplMarker("harness")


@dataclass(frozen=True)
class Kind:
    """One kind of thing plugins register: its registry name, what it is, and what its `register` takes."""

    name: str  # the registry's kind ("task"); `ls` lists its plural, its hook is register_<plural>
    summary: str  # one line for `ls --help`
    register: str  # the `register(...)` call its hook receives: the hook's documentation

    @property
    def plural(self) -> str:
        """The word `python -m harness ls` takes for this kind ("tasks")."""
        return f"{self.name}s"

    @property
    def hook(self) -> str:
        """The hook a plugin implements to register things of this kind ("register_tasks")."""
        return f"register_{self.plural}"


KINDS: tuple[Kind, ...] = (
    Kind(
        "task",
        "tasks and groups of tasks, from their YAML configs",
        """register(path): a folder (or YAML file) of task configs; folders are scanned for *.yaml.""",
    ),
    Kind(
        "model",
        "model adapters (--model)",
        """register(name, factory, description=""): factory is a class or "module:Class" reference.""",
    ),
    Kind(
        "metric",
        "per-sample metrics named by task configs",
        """register(name, func, description=""): func is a callable or "module:function" reference.""",
    ),
    Kind(
        "builder",
        "dataset builders (build NAME) and builder parts",
        """register(name, factory, description=""): a dataset builder command or builder part
    (names with a dot, e.g. "cyclist.renderer.raster", are parts).""",
    ),
    Kind(
        "judge",
        "answer judges (--judge)",
        """register(name, factory, description=""): an answer judge (rule-based or model-backed).""",
    ),
    Kind(
        "report",
        "report section renderers (report)",
        """register(name, func, description=""): a report section renderer, "module:function" called as
    func(runs: list[dict]) -> list[ReportSection] for the results files given to `harness report`.""",
    ),
    Kind(
        "aggregation",
        "corpus aggregations named by `aggregation:` in task configs",
        """register(name, func, description=""): a corpus aggregation, func(items: list) -> float over the
    per-sample items of a metric (lm-eval's contract), named by `aggregation:` in task configs.""",
    ),
    Kind(
        "importer",
        "importers of other tools' per-item outputs (import NAME)",
        """register(name, factory, description=""): an importer of another tool's per-item outputs, used by
    `python -m harness import NAME FILE... --out DIR`; factory ("module:Class") builds a harness.api.Importer
    whose `read(path)` returns an ImportedRun (samples records per task, model name, provenance).""",
    ),
    Kind(
        "command",
        "subcommands of python -m harness",
        """register(name, func, description=""): a subcommand, `python -m harness NAME ARGS...`; func
    ("module:function") is called as func(args: list[str]) -> int | None with the words after NAME and
    returns the exit code (raise harness.api.ConfigError for a user's mistake: exit 2, no traceback).""",
    ),
)


def _hookspec(kind: Kind):
    """The hook specification of one kind: pluggy reads its name and its one argument, `register`."""

    def spec(register):  # noqa: ARG001 - a specification has no body; pluggy reads the signature
        pass

    spec.__name__ = spec.__qualname__ = kind.hook
    spec.__doc__ = kind.register
    return hookspec(spec)


# One hook per kind, named register_<plural>: register_tasks, register_models, ..., register_commands.
globals().update({kind.hook: _hookspec(kind) for kind in KINDS})

__all__ = ["KINDS", "Kind", "hookimpl", "hookspec", *(kind.hook for kind in KINDS)]
