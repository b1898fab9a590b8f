"""The test plugin's own subcommand, `python -m harness colors-data OUT [--n_test N]`: writes its dataset."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.api import ConfigError
from harness_colors.dataset import make_dataset


def main(args: list[str]) -> int:
    """Write the colors dataset under OUT/colors (the data root `--data OUT` reads)."""
    p = argparse.ArgumentParser(prog="python -m harness colors-data", description=__doc__)
    p.add_argument("out", type=Path)
    p.add_argument("--n_test", type=int, default=4)
    ns = p.parse_args(args)
    if ns.n_test < 1:
        raise ConfigError(f"colors-data --n_test {ns.n_test}: expected at least 1 video")
    folder = make_dataset(ns.out / "colors", n_test=ns.n_test, n_train=2)
    print(f"wrote the colors dataset in {folder}")
    return 0
