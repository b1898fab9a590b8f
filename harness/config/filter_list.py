"""`filter_list` in a task config (lm-eval's filter pipelines, see harness/data/filters.py): the pipelines' names
checked, and each metric declared once per pipeline under lm-eval's key `metric,pipeline`."""

from __future__ import annotations

from typing import Any

from harness.errors import ConfigError

#: lm-eval's filter key of a metric without a pipeline (its results' `metric,none`)
NO_FILTER = "none"


def metric_key(metric: str, pipeline: str) -> str:
    """A metric's name under a pipeline: lm-eval's `metric,pipeline` (the plain name for pipeline `none`)."""
    return metric if pipeline == NO_FILTER else f"{metric},{pipeline}"


def split_metric_key(name: str) -> tuple[str, str]:
    """(metric, pipeline) of a metric name (`exact_match,strict` -> ("exact_match", "strict"))."""
    metric, sep, pipeline = name.partition(",")
    return (metric, pipeline) if sep else (name, NO_FILTER)


def pipeline_names(filter_list: Any, what: str) -> list[str]:
    """The pipelines' names, checked: a non-empty list of {name, filter: [...]} with distinct names."""
    if not isinstance(filter_list, list) or not filter_list:
        raise ConfigError(f"{what}: expected a non-empty list of {{name, filter: [...]}} pipelines")
    names: list[str] = []
    for i, pipe in enumerate(filter_list):
        if not isinstance(pipe, dict) or not isinstance(pipe.get("filter"), list) or not pipe.get("name"):
            raise ConfigError(f"{what}[{i}]: expected a mapping with a 'name' and a 'filter' list, got {pipe!r}")
        name = str(pipe["name"])
        if "," in name or name in names:
            raise ConfigError(f"{what}[{i}]: pipeline name {name!r} is repeated or has a comma; give each its own")
        names.append(name)
    return names


def expand_metrics(metrics: list, pipelines: list[str]) -> list:
    """Metric configs (objects with `name`, `headline` and `model_copy`) once per pipeline, named
    `metric,pipeline`, the headline kept on the first pipeline's; a list already keyed by pipeline is kept."""
    if not pipelines or any("," in m.name for m in metrics):
        return metrics
    return [
        m.model_copy(update={"name": metric_key(m.name, pipe), "headline": m.headline and i == 0})
        for i, pipe in enumerate(pipelines)
        for m in metrics
    ]
