"""The `cyclist` group over all five tiers built by the project's builders: Table 5 (clutter and Nightrider
deltas against Unicycle) lands in the group's results through the group aggregate hook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.config.run import RunConfig
from harness.engine.runner import run

TIERS = ("L1", "L2", "L3", "L4", "L5")


def _harness(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "harness", *args], check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def five_tiers(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cyclist_tiers")
    for tier in TIERS:  # every tier into one root, in the release's layout
        _harness("build", "cyclist", "--tier", tier, "--split", "test", "--num-scenes", "3", "--frames", "32",
                 "--size", "32x18", "--out", str(root / "cyclist"), "--no_progress")  # fmt: skip
    return root


def test_group_results_carry_table5_with_counts(five_tiers, tmp_path):
    cfg = RunConfig(
        tasks=["cyclist"], model="oracle", data=five_tiers, cache_dir=tmp_path / "c", progress=False
    )
    out = run(cfg)
    assert set(out.results["task_results"]) == {f"cyclist_l{i}" for i in range(1, 6)}
    group = out.results["group_results"]["cyclist"]
    assert group["metrics"]["accuracy"]["value"] == 1.0
    table5 = group["tables"]["table5"]
    assert set(table5) == {"unicycle_cluttered_minus_unicycle", "nightrider_minus_unicycle"}
    cells = [cell for table in table5.values() for row in table.values() for cell in row.values()]
    assert cells and all(
        cell["delta_points"] == 0.0 and cell["n"] > 0 and cell["n_unicycle"] > 0 for cell in cells
    )
