"""What the grid tests share: a data root with a built-in task's data and the test plugin's, an
--include_path task folder, grid files, and results compared as the single run command writes them."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import yaml

from conftest import PLUGIN_PKG
from harness_builders.cyclist.commands import CyclistBuilder

COLORS_TASKS = PLUGIN_PKG / "harness_colors" / "tasks"
#: results keys that differ between two runs of the same command (when they ran, how long)
VOLATILE = {"created", "date", "start_time", "end_time", "total_evaluation_time_seconds", "samples_files"}


def data_root(base: Path) -> Path:
    """The cyclist demo dataset (the built-in task cyclist_l1) with the colors test dataset in its colors/."""
    (ds,) = [d for d in CyclistBuilder().demo(base, 0) if "cyclist_l1" in d.tasks]
    sys.path.insert(0, str(PLUGIN_PKG))
    try:
        from harness_colors.dataset import make_dataset
    finally:
        sys.path.remove(str(PLUGIN_PKG))
    make_dataset(ds.data_dir / "colors")
    return ds.data_dir


def include_folder(folder: Path) -> Path:
    """An --include_path folder with task `colors_local` (the test plugin's colors_qa under another name)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("hooks.py", "prompt.jinja"):
        shutil.copy(COLORS_TASKS / name, folder / name)
    config = yaml.safe_load((COLORS_TASKS / "colors.yaml").read_text())
    config.update(task="colors_local")
    for key in ("groups", "variants"):
        config.pop(key, None)
    (folder / "colors_local.yaml").write_text(yaml.safe_dump(config))
    return folder


def write_grid(path: Path, **fields) -> Path:
    path.write_text(yaml.safe_dump(json.loads(json.dumps(fields, default=str)), sort_keys=False))  # as written
    return path


def stable(results: dict) -> dict:
    """A results file without the keys that say when it ran."""
    return {k: v for k, v in results.items() if k not in VOLATILE}


def results_files(out: Path) -> list[Path]:
    return sorted(out.glob("*/results_*.json"))


def grid_cells(out: Path) -> list[dict]:
    return json.loads((out / "grid.json").read_text())["cells"]


def cell_results(out: Path, name: str, task: str) -> tuple[dict, list[str]]:
    """(results without volatile keys, samples lines) of a grid cell."""
    (cell,) = [c for c in grid_cells(out) if c["name"] == name and c["task"] == task]
    return read_run(Path(cell["results"]))


def read_run(path: Path) -> tuple[dict, list[str]]:
    results = json.loads(path.read_text())
    samples = [
        line for name in results["samples_files"].values() for line in (path.parent / name).read_text().splitlines()
    ]
    return stable(results), samples


def cached(cache: Path) -> int:
    """Responses in the response cache (each a finished model call)."""
    db = cache / "responses.sqlite"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def calls(*logs: Path) -> int:
    """Model calls the counting test model logged."""
    return sum(log.read_text().count("\n") for log in logs if log.exists())


def differences(a, b, path: str = "") -> list[str]:
    """Where two JSON values differ (for a readable assertion message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{path}/{k}")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:200]} != {str(b)[:200]}"]
