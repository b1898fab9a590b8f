"""A running cell's progress for its status file: the evaluator's per-sample bar (tqdm, imported when the
generation starts) counted while a grid worker runs a cell, reported at most every REPORT_SECONDS and when
the bar is full. The bar shows (or stays hidden) as it would; only the grid's worker process is affected."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Optional

import tqdm as tqdm_module

REPORT_SECONDS = 5.0
Reporter = Callable[[int, int], None]
_state: dict[str, Optional[Reporter]] = {"report": None}


class _CountedBar(tqdm_module.tqdm):
    """tqdm that also tells the grid how many of its samples are done (only bars counting samples)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.grid_counts = kwargs.get("unit") == "sample" and bool(kwargs.get("total"))
        self.grid_total, self.grid_done, self.grid_sent = int(kwargs.get("total") or 0), 0, 0.0
        super().__init__(*args, **kwargs)

    def update(self, n: float = 1) -> Optional[bool]:
        out = super().update(n)
        report = _state["report"]
        if self.grid_counts and report is not None:
            self.grid_done += int(n)
            now = time.monotonic()
            if self.grid_done >= self.grid_total or now - self.grid_sent >= REPORT_SECONDS:
                self.grid_sent = now
                report(self.grid_done, self.grid_total)
        return out


@contextmanager
def cell_progress(report: Reporter) -> Iterator[None]:
    """Within the block, the samples the model generates are reported as report(done, total)."""
    original = tqdm_module.tqdm
    tqdm_module.tqdm, _state["report"] = _CountedBar, report
    try:
        yield
    finally:
        tqdm_module.tqdm, _state["report"] = original, None
