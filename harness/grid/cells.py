"""Cells (one model entry x one task) and their identities: a hash of everything that changes a cell's answers.

A cell's `run` is the run command's configuration for `--tasks TASK --model MODEL ...` as plain JSON, so it
travels to a worker on another node; `run_config` turns it back into the RunConfig the run command builds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import __version__
from harness.cache import default_cache_dir
from harness.config.run import RunConfig, parse_frames, parse_kv
from harness.engine.runner import expand_tasks
from harness.grid.spec import GridFile, ModelEntry, absolute
from harness.plugins.loading import PluginState

#: the run settings that change a cell's answers or its results file (batch size, caches, strictness do not)
IDENTITY_KEYS = (
    "model", "model_args", "tasks", "frames", "limit", "data", "data_revision", "split", "seed",
    "gen_kwargs", "judge", "judge_args", "log_samples",
)
#: run settings that are paths: made absolute, and Paths again in the worker
PATH_KEYS = ("output_path", "cache_dir", "data")


@dataclass
class Cell:
    """One model entry on one task: its identity, where it shows, and the run it is."""

    id: str
    label: str  # the model entry's name (grid `name`, else the model, numbered when repeated)
    entry: int  # index of the model entry in the grid file
    task: str
    run: dict[str, Any]

    @property
    def title(self) -> str:
        return f"{self.label} x {self.task}"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def task_config_hash(state: PluginState, name: str) -> str:
    """Hash of a task's (or a group's and all its members') registered configuration."""
    leaves, groups = expand_tasks(state, [name])
    configs = {n: state.registry.get("task", n).extra.get("config") for n in [*groups, *leaves]}
    return hashlib.sha256(_canonical(configs).encode()).hexdigest()[:16]


def cell_id(run: dict[str, Any], config_hash: str) -> str:
    """The identity of a cell: model and args, task and its config hash, frames, limit, data and its
    revision, seed, split, generation and judge settings, and the harness version."""
    key = {k: run.get(k) for k in IDENTITY_KEYS}
    frames = parse_frames(run.get("frames"))
    key["frames"] = frames.canonical() if frames else None  # `uniform:8` and `strategy=uniform,count=8` alike
    key.update(task_config=config_hash, harness_version=__version__)
    return hashlib.sha256(_canonical(key).encode()).hexdigest()[:16]


def _labels(entries: list[ModelEntry]) -> list[str]:
    """Each entry's name: its `name`, else its model, with #2, #3 for repeats of a name."""
    base = [e.name or e.model for e in entries]
    out = []
    for i, name in enumerate(base):
        n = base[:i].count(name)
        out.append(name if base.count(name) == 1 else f"{name}#{n + 1}")
    return out


def base_run(grid: GridFile, entry: ModelEntry, task: str) -> dict[str, Any]:
    """The run command's settings for one cell, as JSON (paths absolute, k=v strings parsed)."""
    judge_args = entry.judge_args if entry.judge else grid.judge_args
    return {
        "tasks": [task],
        "model": entry.model,
        "model_args": entry.args(),
        "limit": grid.run_limit(),
        "batch_size": entry.batch_size or grid.batch_size,
        "output_path": absolute(grid.output_path),
        "log_samples": grid.log_samples,
        "cache_dir": absolute(grid.cache_dir or default_cache_dir()),  # one place for every worker
        "no_cache": grid.no_cache,
        "seed": grid.seed,
        "include_path": [absolute(Path(p)) for p in grid.include_path],
        "judge": entry.judge or grid.judge,
        "judge_args": judge_args if isinstance(judge_args, dict) else parse_kv(judge_args, "judge_args"),
        "frames": grid.frames,
        "data": absolute(grid.data),
        "data_revision": grid.data_revision,
        "split": grid.split,
        "strict": grid.strict,
        "max_error_rate": grid.max_error_rate,
        "gen_kwargs": grid.gen_kwargs if isinstance(grid.gen_kwargs, dict) else parse_kv(grid.gen_kwargs, "gen_kwargs"),
        "progress": False,
    }


def build_cells(grid: GridFile, state: PluginState) -> list[Cell]:
    """Every cell of the grid, model entry by model entry (a model's cells run in one worker, in this order)."""
    hashes = {task: task_config_hash(state, task) for task in grid.tasks}
    cells = []
    for i, (entry, label) in enumerate(zip(grid.models, _labels(grid.models), strict=True)):
        for task in grid.tasks:
            run = base_run(grid, entry, task)
            run_config(run)  # batch size, limit: the run command's own checks, before any model call
            cells.append(Cell(cell_id(run, hashes[task]), label, i, task, run))
    return cells


def run_config(run: dict[str, Any]) -> RunConfig:
    """The RunConfig of a cell's `run` (what `python -m harness --tasks TASK --model MODEL ...` builds)."""
    values = dict(run)
    for key in PATH_KEYS:
        values[key] = Path(values[key]) if values.get(key) else None
    values["frames"] = parse_frames(values.get("frames"))
    return RunConfig(**values)
