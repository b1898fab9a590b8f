"""Every benchmark script runs in its fast mode and returns well-formed figures (nothing about time)."""

from __future__ import annotations

import importlib
import math
import os

import pytest

from bench.__main__ import render, scripts


@pytest.mark.parametrize("name", scripts())
def test_bench_script_runs_fast(name):
    module = importlib.import_module(f"bench.{name}")
    needs = getattr(module, "REQUIRES_ENV", None)  # a peer tool installed outside the project
    if needs and not os.environ.get(needs):
        pytest.skip(f"{name} needs {needs} (see its docstring)")
    rows = module.run(fast=True)
    assert rows, f"{name} returned no figures"
    for row in rows:
        assert {"figure", "ours", "baseline", "ratio", "unit", "target"} <= set(row), row
        assert all(math.isfinite(float(row[k])) for k in ("ours", "baseline", "ratio"))
    assert name in render([(name, r) for r in rows], [], fast=True)
