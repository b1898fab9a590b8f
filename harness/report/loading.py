"""Load results files (and the samples files next to them) into the run dicts reports work on.

A run is the results dict of docs/results.md (older schema versions upgraded on reading) plus the keys the
report adds: `_source` and `_sources` (the results file's path; a merged run lists each), `_label` (the
model's short row label, unique among the runs loaded together) and `_samples` ({task: [sample records]} for
the tasks whose samples file exists next to the results file).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Optional

from harness.errors import EXIT_OK, EXIT_USAGE
from harness.results.reading import ResultsFileError, read_results, read_samples, samples_file_of


class ReportInputError(ResultsFileError):
    """A results or samples file given to report, compare or leaderboard is missing or malformed (exit 2)."""


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Results files from files and folders (a folder contributes every results_*.json below it; one that is
    not a regular file is listed, for the reader to refuse by name)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(q for q in p.rglob("results_*.json") if not q.is_dir())
            if not found:
                raise ReportInputError(f"{p}: folder holds no results_*.json file (give a results file)")
            out.extend(found)
        elif p.exists() or p.is_symlink():
            out.append(p)
        else:
            raise ReportInputError(f"{p}: no such results file or folder")
    return out


def load_run(path: str | Path, with_samples: bool = True, nonfinite_metrics: str = "refuse") -> dict[str, Any]:
    """One results file as a run dict (read and validated: harness.results.reading), with its samples
    files when they lie next to it. `nonfinite_metrics="note"`: NaN metric values read as null, listed under
    `_nonfinite` as (task, metric) pairs (compare's NEW run)."""
    read = read_results(path, nonfinite_metrics)
    run = read.data
    run["_source"] = str(read.path)
    run["_sources"] = [str(read.path)]
    run["_label"] = read.model.model.name
    run["_nonfinite"] = sorted(read.nonfinite)
    samples: dict[str, list[dict]] = {}
    if with_samples:
        for task in sorted(read.model.samples_files):
            sp = samples_file_of(read, task)
            if sp.exists():
                samples[task] = read_samples(sp)
    run["_samples"] = samples
    return run


def skipped_files(failures: Sequence[str]) -> int:
    """Name on stderr each results file a command skipped; its exit code (2 when any was skipped, else 0)."""
    for line in failures:
        print(f"error: {line}", file=sys.stderr)
    if failures:
        print(f"error: {len(failures)} results file(s) skipped; the output covers the others", file=sys.stderr)
    return EXIT_USAGE if failures else EXIT_OK


def _settings(run: dict[str, Any]) -> dict[str, str]:
    """What tells two runs of one model apart in a row label: its args, seed and judge."""
    cfg = run.get("config") or {}
    args = ((run.get("model") or {}).get("identity") or {}).get("args") or {}
    out = {k: json.dumps(v, sort_keys=True) if not isinstance(v, str) else v for k, v in args.items()}
    if cfg.get("seed") is not None:
        out["seed"] = str(cfg["seed"])
    judge = cfg.get("judge")
    if judge:
        out["judge"] = str(judge.get("name", "?"))
    return out


def _differing(runs: Sequence[dict[str, Any]]) -> None:
    """Add to the labels of runs that share one the settings (args, seed, judge) that differ among them."""
    settings = [_settings(r) for r in runs]
    keys = sorted({k for s in settings for k in s})
    varying = [k for k in keys if len({s.get(k) for s in settings}) > 1]
    for r, s in zip(runs, settings, strict=True):
        parts = [f"{k}={s[k]}" if k in s else f"no {k}" for k in varying]
        if parts:
            r["_label"] = f"{r['_label']} ({', '.join(parts)})"


def _tasks_overlap(runs: Sequence[dict[str, Any]]) -> bool:
    seen: set[str] = set()
    for r in runs:
        tasks = set(r.get("task_results") or {})
        if tasks & seen:
            return True
        seen |= tasks
    return False


def _by_label(runs: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        out.setdefault(r["_label"], []).append(r)
    return out


def unique_labels(runs: Sequence[dict[str, Any]]) -> None:
    """Short row labels: the model name, then the settings that differ (args, seed, judge), then
    "rescored", then "run N" (by creation time) for runs that still share a label and a task.

    Runs that share a label but no task keep it: `merge_runs` makes them one row.
    """
    for same in _by_label(runs).values():
        if len(same) > 1:
            _differing(same)
    for same in _by_label(runs).values():
        if len(same) > 1 and len({bool(r.get("rescored_from")) for r in same}) > 1:
            for r in same:
                if r.get("rescored_from"):
                    r["_label"] += " (rescored)"
    for same in _by_label(runs).values():
        if len(same) > 1 and _tasks_overlap(same):
            for i, r in enumerate(sorted(same, key=lambda r: (str(r.get("created")), r["_source"])), 1):
                r["_label"] += f" (run {i})"


def _merge(same: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Runs of one model and settings over disjoint tasks as one run (one row in every table)."""
    out = dict(same[0])
    out["config"] = dict(out.get("config") or {})
    out["config"]["tasks"] = {}
    for key in ("task_results", "group_results", "_samples"):
        out[key] = {}
    out["_sources"] = []
    out["incomplete_reasons"] = []
    for r in same:
        out["config"]["tasks"].update((r.get("config") or {}).get("tasks") or {})
        for key in ("task_results", "group_results", "_samples"):
            out[key].update(r.get(key) or {})
        out["_sources"] += r["_sources"]
        out["incomplete_reasons"] += r.get("incomplete_reasons") or []
    out["complete"] = all(r.get("complete", True) is not False for r in same)
    out["_source"] = ", ".join(out["_sources"])
    return out


def merge_runs(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One run per label: runs that share a label (after unique_labels) cover disjoint tasks and merge."""
    return [same[0] if len(same) == 1 else _merge(same) for same in _by_label(runs).values()]


def load_runs(
    paths: Iterable[str | Path], with_samples: bool = True, failures: Optional[list[str]] = None
) -> list[dict[str, Any]]:
    """Every results file under `paths`, loaded, with short unique row labels; runs of one model and
    settings over different tasks (e.g. one run per benchmark) are merged into one row.

    `failures`: a file that cannot be read is added to it (its one-line message) and the others go on;
    without it the first such file raises. No file readable at all raises either way."""
    files = expand_paths(paths)
    if not files:
        raise ReportInputError("no results files given")
    runs = []
    for p in files:
        try:
            runs.append(load_run(p, with_samples))
        except ResultsFileError as exc:
            if failures is None or len(files) == 1:
                raise
            failures.append(str(exc))
    if not runs:
        raise ReportInputError(f"none of the {len(files)} results files could be read:\n  " + "\n  ".join(failures or []))
    unique_labels(runs)
    return merge_runs(runs)


def task_config(run: dict[str, Any], task: str) -> dict[str, Any]:
    """The validated task config a run recorded for `task` ({} when absent)."""
    return ((run.get("config") or {}).get("tasks") or {}).get(task, {}).get("config") or {}


def runs_with_task(runs: Sequence[dict[str, Any]], task: str) -> list[dict[str, Any]]:
    """The runs that evaluated `task`, in the given order."""
    return [r for r in runs if task in (r.get("task_results") or {})]


def all_tasks(runs: Sequence[dict[str, Any]]) -> list[str]:
    """Every task name of the runs, sorted."""
    return sorted({t for r in runs for t in (r.get("task_results") or {})})


def all_groups(runs: Sequence[dict[str, Any]]) -> list[str]:
    """Every group name of the runs, sorted."""
    return sorted({g for r in runs for g in (r.get("group_results") or {})})


def task_result(run: dict[str, Any], task: str) -> Optional[dict[str, Any]]:
    """The harness's entry for `task` in a run (task_results[task]: docs/results.md), or None."""
    return (run.get("task_results") or {}).get(task)


def group_result(run: dict[str, Any], group: str) -> Optional[dict[str, Any]]:
    """The harness's entry for `group` in a run (group_results[group]), or None."""
    return (run.get("group_results") or {}).get(group)
