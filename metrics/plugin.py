"""Registers every metric of metrics/table.py with the harness plugin registry (entry point `metrics = harness_metrics.plugin`).

The hook marker is defined here with the project name "harness" so that this package stays free of any
import of the core; metrics are registered as "module:function" strings to keep imports lazy.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

from harness_metrics.table import METRICS

hookimpl = pluggy.HookimplMarker("harness")


@hookimpl
def register_metrics(register: Callable[..., None]) -> None:
    """Register each table row by name with its "module:function" reference and its one-line summary."""
    for row in METRICS:
        register(row.name, row.function, description=row.summary)
