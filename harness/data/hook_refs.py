"""Every hook reference a task config holds, by field: the native hooks, the loader, process_docs, the hub's
patterns_hook, file aggregations, the calibration entry point, lm-eval / lmms-eval `!function`s and the
filter classes of a `filter_list`; a group's aggregate hook and aggregate_metric_list functions. Each field's
contract is `harness.contract.hooks.contract_of(field)`; the task checks them all when it is built
(`Task.check_hooks`), a group when the run expands it (`check_group_hooks`), before any data or model is loaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.config.schema import GroupConfig, TaskConfig
from harness.config.yaml_files import FUNCTION_TAG
from harness.contract.hooks import check_hook, contract_of
from harness.plugins.references import hook_file, load_hook


def references(cfg: TaskConfig) -> list[tuple[str, str]]:
    """(field, reference) for every hook reference of the config (fields as `contract_of` reads them)."""
    refs = [("dataset.loader", cfg.dataset.loader), ("dataset.process_docs", cfg.dataset.process_docs)]
    refs += [(f"hooks.{k}", v) for k, v in cfg.hooks.model_dump().items()]
    refs.append(("hooks.prepare_scoring", cfg.hooks.prepare_scoring))  # left out of dumps (schema.py)
    refs += [(f"metrics[{i}].aggregation", m.aggregation) for i, m in enumerate(cfg.metrics) if ":" in m.aggregation]
    refs.append(("metadata.calibration", cfg.metadata.get("calibration")))
    if cfg.dataset.hub is not None:
        refs.append(("dataset.hub.patterns_hook", cfg.dataset.hub.patterns_hook))
    if cfg.lmms is not None:
        refs += list(function_references(cfg.lmms.model_dump(), "lmms"))
    refs += list(filter_references(cfg.filter_list or []))
    return [(f, r) for f, r in refs if isinstance(r, str) and r]


def filter_references(filter_list: list) -> Iterator[tuple[str, str]]:
    """(field, reference) of each task's own filter class in a `filter_list` (`function: !function utils.F`,
    `function: utils.py:F` or `class: utils.py:F`); a registered filter name is no reference."""
    for i, pipe in enumerate(filter_list):
        steps = pipe.get("filter") if isinstance(pipe, dict) else None
        for j, step in enumerate(steps if isinstance(steps, list) else []):
            for key in ("function", "class"):
                value = step.get(key) if isinstance(step, dict) else None
                if isinstance(value, dict) and set(value) == {FUNCTION_TAG}:
                    yield f"filter_list[{i}].filter[{j}].{key}", value[FUNCTION_TAG]
                elif isinstance(value, str) and (key == "class" or ":" in value):  # a name: no reference
                    yield f"filter_list[{i}].filter[{j}].{key}", value


def function_references(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """(field path, reference) of every lm-eval `{"!function": ref}` inside a config section."""
    if isinstance(value, dict):
        if set(value) == {FUNCTION_TAG}:
            yield where, value[FUNCTION_TAG]
            return
        for key, item in value.items():
            yield from function_references(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from function_references(item, f"{where}[{i}]")


def group_references(cfg: GroupConfig) -> list[tuple[str, str]]:
    """(field, reference) for every hook reference of a group config (fields as `contract_of(field, group=True)`
    reads them): its aggregate hook and its aggregate_metric_list functions (any aggregation but `mean`)."""
    refs = [("hooks.aggregate", cfg.hooks.aggregate)]
    refs += [(f"aggregate_metric_list[{i}].aggregation", m.aggregation) for i, m in enumerate(cfg.aggregate_metric_list)]
    return [(f, r) for f, r in refs if isinstance(r, str) and r and r != "mean"]


def check_group_hooks(name: str, cfg: GroupConfig, path: Path) -> None:
    """Every hook reference of the group `name` (its YAML `path`) resolved inside its folder and held to its
    contract: ConfigError or HookContractError (exit 2) naming the group, the field and the reference, before any
    data or model is loaded (the group's functions run only after every model call)."""
    where = f"group '{name}' ({path})"
    for field_name, ref in group_references(cfg):
        what = f"group '{name}' field '{field_name}'"
        hook_file(ref, path.parent, what)
        contract = contract_of(field_name, group=True)
        if contract is not None:
            check_hook(load_hook(ref, path.parent, what), contract, where, ref, field_name)
