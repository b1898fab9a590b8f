"""Benchmark scripts: one per figure, each measuring its baseline in the same run (`python -m bench`)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent.parent / "tests"


def from_tests(name: str) -> ModuleType:
    """A module of the test scaffolding in tests/ (e.g. `tiny_mirrors`, the tiny model checkpoints), imported by
    its name as the tests import it: tests/ goes to the end of sys.path, shadowing nothing."""
    if str(TESTS) not in sys.path:
        sys.path.append(str(TESTS))
    return importlib.import_module(name)


def figure_row(figure: str, ours: float, baseline: float, unit: str, target: str, ratio: float | None = None) -> dict:
    """One figure of bench/RESULTS.md. `ratio` defaults to ours / baseline (rates: higher is better; inf when the
    baseline is 0); pass it for times, where the baseline over ours is the speed-up."""
    if ratio is None:
        ratio = ours / baseline if baseline > 0 else float("inf")
    return {"figure": figure, "ours": ours, "baseline": baseline, "ratio": ratio, "unit": unit, "target": target}
