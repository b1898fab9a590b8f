"""The per-sample progress of a run's generation phase: tqdm's bar, and the run's own reporter when it has one.

A run's reporter (`RunConfig.on_progress`, e.g. a grid worker writing its cell's status file) travels with the
run and is called by the bar the evaluator hands the generation pipeline; nothing is patched process-wide.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

#: report(done, total): samples answered by the model so far, of those it has to answer in this run
ProgressReport = Callable[[int, int], None]


class SampleProgress:
    """What the generation pipeline updates as samples are answered: `bar` (tqdm's, shown or hidden as the
    run says) and, with `report`, report(done, total) after every update."""

    def __init__(self, bar: Any, total: int, report: Optional[ProgressReport] = None) -> None:
        self.bar = bar
        self.total = total
        self.done = 0
        self.report = report

    def update(self, n: int = 1) -> None:
        """`n` more samples answered."""
        self.bar.update(n)
        self.done += int(n)
        if self.report is not None and self.total:
            self.report(self.done, self.total)

    def close(self) -> None:
        """The phase has ended: the bar is closed."""
        self.bar.close()
