"""The plugin hook specifications: one hook per kind of thing a plugin registers, each receiving a `register`
callback.

`KINDS` is the one table of those kinds: the registry (`harness.plugins.registry`), the loader
(`harness.plugins.loading`), `python -m harness ls` and the hooks below all read it, so adding a kind is one row.
A plugin is a module with functions decorated by `hookimpl` (pluggy marker "harness") named after the hooks
(`register_tasks`, `register_models`, ...); it may implement any subset. Registering by string reference
("package.module:Name") keeps heavy imports lazy.

A task's own hooks (the `hooks:` of its YAML: `build_request`, `target`, `parse`, `score`, ...) are plain
functions whose contracts (argument and return types) are the Protocols of `harness.contract.hooks`, checked
when the task loads.
"""

from __future__ import annotations

from dataclasses import dataclass

import pluggy

hookspec = pluggy.HookspecMarker("harness")
hookimpl = pluggy.HookimplMarker("harness")


@dataclass(frozen=True)
class Kind:
    """One kind of thing plugins register: its registry name and what it is (its hook, below, documents what
    its `register` takes)."""

    name: str  # the registry's kind ("task"); `ls` lists its plural, its hook is register_<plural>
    summary: str  # one line for `ls --help`

    @property
    def plural(self) -> str:
        """The word `python -m harness ls` takes for this kind ("tasks")."""
        return f"{self.name}s"

    @property
    def hook(self) -> str:
        """The hook a plugin implements to register things of this kind ("register_tasks")."""
        return f"register_{self.plural}"

    @property
    def register(self) -> str:
        """The `register(...)` call its hook receives: the docstring of its `@hookspec` below."""
        return globals()[self.hook].__doc__ or ""


KINDS: tuple[Kind, ...] = (
    Kind("task", "tasks and groups of tasks, from their YAML configs"),
    Kind("model", "model adapters (--model)"),
    Kind("metric", "per-sample metrics named by task configs"),
    Kind("builder", "dataset builders (build NAME) and builder parts"),
    Kind("judge", "answer judges (--judge)"),
    Kind("report", "report section renderers (report)"),
    Kind("aggregation", "corpus aggregations named by `aggregation:` in task configs"),
    Kind("importer", "importers of other tools' per-item outputs (import NAME)"),
    Kind("command", "subcommands of python -m harness"),
)

# One hook per kind, named register_<plural>; pluggy reads each one's name and its one argument, `register`.
# A specification has no body.


@hookspec
def register_tasks(register):
    """register(path): a folder (or YAML file) of task configs; folders are scanned for *.yaml."""


@hookspec
def register_models(register):
    """register(name, factory, description=""): factory is a harness.api.Model subclass or a "module:Class"
    reference to one."""


@hookspec
def register_metrics(register):
    """register(name, func, description=""): func is a callable or "module:function" reference."""


@hookspec
def register_builders(register):
    """register(name, factory, description=""): a dataset builder command or builder part
    (names with a dot, e.g. "cyclist.renderer.raster", are parts)."""


@hookspec
def register_judges(register):
    """register(name, factory, description=""): an answer judge (rule-based or model-backed)."""


@hookspec
def register_reports(register):
    """register(name, func, description=""): a report section renderer, "module:function" called as
    func(runs: list[dict]) -> list[ReportSection] for the results files given to `harness report`."""


@hookspec
def register_aggregations(register):
    """register(name, func, description=""): a corpus aggregation, func(items: list) -> float over the
    per-sample items of a metric (lm-eval's contract), named by `aggregation:` in task configs."""


@hookspec
def register_importers(register):
    """register(name, factory, description=""): an importer of another tool's per-item outputs, used by
    `python -m harness import NAME FILE... --out DIR`; factory ("module:Class") builds a harness.api.Importer
    whose `read(path)` returns an ImportedRun (samples records per task, model name, provenance)."""


@hookspec
def register_commands(register):
    """register(name, func, description=""): a subcommand, `python -m harness NAME ARGS...`; func
    ("module:function") is called as func(args: list[str]) -> int | None with the words after NAME and
    returns the exit code (raise harness.api.ConfigError for a user's mistake: exit 2, no traceback)."""


__all__ = [
    "KINDS",
    "Kind",
    "hookimpl",
    "hookspec",
    "register_aggregations",
    "register_builders",
    "register_commands",
    "register_importers",
    "register_judges",
    "register_metrics",
    "register_models",
    "register_reports",
    "register_tasks",
]
