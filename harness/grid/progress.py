"""A running cell's progress for its status file: the run's reporter (`RunConfig.on_progress`, called by the
evaluator's per-sample bar) passed on at most every REPORT_SECONDS and when the last sample is answered. The
reporter travels with the cell's run: tqdm and every other run in the process are left as they are."""

from __future__ import annotations

import math
import time

from harness.engine.progress import ProgressReport

REPORT_SECONDS = 5.0


class ThrottledReport:
    """`report(done, total)`, called at most every REPORT_SECONDS (the first and the last call always)."""

    def __init__(self, report: ProgressReport) -> None:
        self.report = report
        self.sent = -math.inf

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - self.sent >= REPORT_SECONDS:
            self.sent = now
            self.report(done, total)
