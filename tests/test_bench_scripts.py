"""Every benchmark script runs in its fast mode and returns well-formed figures (nothing about time)."""

from __future__ import annotations

import importlib
import math

import pytest

from bench.__main__ import render, scripts


@pytest.mark.parametrize("name", scripts())
def test_bench_script_runs_fast(name):
    rows = importlib.import_module(f"bench.{name}").run(fast=True)
    assert rows, f"{name} returned no figures"
    for row in rows:
        assert {"figure", "ours", "baseline", "ratio", "unit", "target"} <= set(row), row
        assert all(math.isfinite(float(row[k])) for k in ("ours", "baseline", "ratio"))
    assert name in render([(name, r) for r in rows], [], fast=True)
