"""Small datasets the tests make with the project's own builders, in a fresh process or in this one."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def harness_build(*args: str) -> None:
    """`python -m harness build ARGS... --no_progress` in a fresh process (CalledProcessError when it fails)."""
    command = [sys.executable, "-m", "harness", "build", *args, "--no_progress"]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)


def build_with(builder, args: list[str]) -> None:
    """One build in this process, its arguments read by the builder's own parser."""
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    assert builder.run(parser.parse_args(args)) == 0


def cyclist_scenes(out: Path, tier: str, num_scenes: int, seed: int) -> Path:
    """`num_scenes` rendered CycliST scenes of `tier` (32 frames, 160x90) in `out`, built in a fresh process."""
    size = ["--size", "160x90", "--frames", "32", "--seed", str(seed)]
    harness_build("cyclist", "--tier", tier, "--num-scenes", str(num_scenes), "--out", str(out), *size)
    return out
