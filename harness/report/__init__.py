"""Reports, comparisons and leaderboards from results files (docs/reports.md).

The public API for report renderers of benchmark plugins: ReportSection, Table, Cell, Figure, the plot
helpers in harness.report.plots, and the run helpers (ci_from_samples, field_equals, task_result,
group_result, ...): renderers read a run's entries through task_result/group_result, never the file's keys.
"""

from harness.report.loading import (
    ReportInputError,
    all_groups,
    all_tasks,
    group_result,
    load_run,
    load_runs,
    runs_with_task,
    task_config,
    task_result,
)
from harness.report.sections import Cell, Figure, ReportSection, Table
from harness.report.stats import ci_from_samples, field_equals

__all__ = [
    "Cell",
    "Figure",
    "ReportInputError",
    "ReportSection",
    "Table",
    "all_groups",
    "all_tasks",
    "ci_from_samples",
    "field_equals",
    "group_result",
    "load_run",
    "load_runs",
    "runs_with_task",
    "task_config",
    "task_result",
]
