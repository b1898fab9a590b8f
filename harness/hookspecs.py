"""The plugin hook specifications: each hook receives a `register` callback.

A plugin is a module with functions decorated by `hookimpl` (pluggy marker "harness"); it may implement
any subset. Registering by string reference ("package.module:Name") keeps heavy imports lazy.
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("harness")
hookimpl = pluggy.HookimplMarker("harness")


@hookspec
def register_tasks(register):
    """register(path): a folder (or YAML file) of task configs; folders are scanned for *.yaml."""


@hookspec
def register_models(register):
    """register(name, factory, description=""): factory is a class or "module:Class" reference."""


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
def register_aggregations(register):
    """register(name, func, description=""): a corpus aggregation, func(items: list) -> float over the
    per-sample items of a metric (lm-eval's contract), named by `aggregation:` in task configs."""


@hookspec
def register_reports(register):
    """register(name, func, description=""): a report section renderer, "module:function" called as
    func(runs: list[dict]) -> list[ReportSection] for the results files given to `harness report`."""


@hookspec
def register_importers(register):
    """register(name, factory, description=""): an importer of another tool's per-item outputs, used by
    `python -m harness import NAME FILE... --out DIR`; factory ("module:Class") builds a harness.contract.importer
    .Importer whose `read(path)` returns an ImportedRun (samples records per task, model name, provenance)."""
