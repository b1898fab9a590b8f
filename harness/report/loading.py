"""Load results files (and the samples files next to them) into the run dicts reports work on.

A run is the results dict of docs/results.md plus three keys the report adds: `_source` (the results
file's path), `_label` (the model's row label, unique among the runs loaded together) and `_samples`
({task: [sample records]} for the tasks whose samples file exists next to the results file).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Optional

from harness.errors import ConfigError
from harness.results.writer import read_samples


class ReportInputError(ConfigError):
    """A results or samples file given to report, compare or leaderboard is missing or malformed."""


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Results files from files and folders (a folder contributes every results_*.json below it)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(q for q in p.rglob("results_*.json") if q.is_file())
            if not found:
                raise ReportInputError(f"{p}: folder holds no results_*.json file (give a results file)")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise ReportInputError(f"{p}: no such results file or folder")
    return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ReportInputError(
            f"{path}: not valid JSON ({exc}); give a harness results_*.json file"
        ) from None
    except OSError as exc:
        raise ReportInputError(f"{path}: cannot read ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict) or "model" not in data:
        raise ReportInputError(
            f"{path}: not a harness results file (needs 'model' and 'results'; see docs/results.md)"
        )
    return data


def load_run(path: str | Path, with_samples: bool = True) -> dict[str, Any]:
    """One results file as a run dict, with its samples files when they lie next to it."""
    path = Path(path)
    run = _read_json(path)
    run["_source"] = str(path)
    run["_label"] = str(run["model"].get("name", path.parent.name))
    samples: dict[str, list[dict]] = {}
    if with_samples:
        for task, name in sorted((run.get("samples_files") or {}).items()):
            sp = path.parent / name
            if sp.is_file():
                samples[task] = read_samples(sp)
    run["_samples"] = samples
    return run


def _describe_args(run: dict[str, Any]) -> str:
    cfg = run.get("config") or {}
    parts = [f"{k}={v}" for k, v in sorted((cfg.get("model_args") or {}).items())]
    if cfg.get("seed") is not None:
        parts.append(f"seed={cfg['seed']}")
    return ", ".join(parts)


def unique_labels(runs: Sequence[dict[str, Any]]) -> None:
    """Make `_label` unique: model name, then its args and seed, then the results file name."""
    names = Counter(r["_label"] for r in runs)
    for r in runs:
        if names[r["_label"]] > 1:
            args = _describe_args(r)
            r["_label"] = f"{r['_label']} ({args})" if args else r["_label"]
    names = Counter(r["_label"] for r in runs)
    for r in runs:
        if names[r["_label"]] > 1:
            r["_label"] = f"{r['_label']} [{Path(r['_source']).name}]"


def load_runs(paths: Iterable[str | Path], with_samples: bool = True) -> list[dict[str, Any]]:
    """Every results file under `paths`, loaded, with unique row labels."""
    files = expand_paths(paths)
    if not files:
        raise ReportInputError("no results files given")
    runs = [load_run(p, with_samples) for p in files]
    unique_labels(runs)
    return runs


def task_config(run: dict[str, Any], task: str) -> dict[str, Any]:
    """The validated task config a run recorded for `task` ({} when absent)."""
    return ((run.get("config") or {}).get("tasks") or {}).get(task, {}).get("config") or {}


def runs_with_task(runs: Sequence[dict[str, Any]], task: str) -> list[dict[str, Any]]:
    """The runs that evaluated `task`, in the given order."""
    return [r for r in runs if task in (r.get("results") or {})]


def all_tasks(runs: Sequence[dict[str, Any]]) -> list[str]:
    """Every task name of the runs, sorted."""
    return sorted({t for r in runs for t in (r.get("results") or {})})


def task_result(run: dict[str, Any], task: str) -> Optional[dict[str, Any]]:
    """results[task] of a run, or None."""
    return (run.get("results") or {}).get(task)
