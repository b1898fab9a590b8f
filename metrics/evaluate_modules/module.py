"""The `evaluate.Metric` class of one metrics/table.py row; each module folder's script only names its row."""

from __future__ import annotations

import importlib
from typing import Any

import evaluate

from harness_metrics.evaluate_modules.calls import CALLS
from harness_metrics.evaluate_modules.features import features
from harness_metrics.evaluate_modules.files import class_name
from harness_metrics.table import MetricRow, metric_row

INPUTS_DESCRIPTION = "See docs/metrics.md in the video-harness repository."


def _function(row: MetricRow) -> Any:
    """The row's metric function, imported from its "module:function" reference."""
    module, _, attr = row.function.partition(":")
    return getattr(importlib.import_module(module), attr)


def metric_class(name: str) -> type[evaluate.Metric]:
    """An `evaluate.Metric` subclass that describes and computes the table row `name`."""
    row = metric_row(name)
    function = _function(row)
    call = CALLS[row.call]

    def _info(self: evaluate.Metric) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=row.description,
            citation="",
            inputs_description=INPUTS_DESCRIPTION,
            features=features(row.predictions, row.references),
        )

    def _compute(self: evaluate.Metric, predictions: Any, references: Any, **kwargs: Any) -> dict[str, Any]:
        return call(row.name, function, predictions, references, **kwargs)

    members = {"__doc__": row.summary, "__module__": __name__, "_info": _info, "_compute": _compute}
    return type(class_name(name), (evaluate.Metric,), members)
