"""Every hook reference a task config holds, by field: the native hooks, the loader, process_docs, the hub's
patterns_hook, file aggregations, the calibration entry point, lm-eval / lmms-eval `!function`s and the
filter classes of a `filter_list`. Each field's contract is `harness.contract.hooks.contract_of(field)`; the
task checks them all when it is built (`Task.check_hooks`), before any data or model is loaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.config.schema import TaskConfig
from harness.config.yaml_files import FUNCTION_TAG


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
