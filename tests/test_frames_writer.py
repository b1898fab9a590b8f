"""The H.264 writer's bytes must not depend on the machine's CPUs.

Found while chasing the flaky CycliST `--workers 1` vs `2` test: the rendered frames were identical (hashed
as they reached the writer), the encoded bytes were not. With FFmpeg's automatic threading the encoding
depends on the CPUs the process may use (libx264 cuts one slice per thread at 640x360); restricting the
process's CPUs reproduces that deterministically. (A rarer difference remains after some other code has
run in the same process, with one thread and identical frames: see docs/reliability.md.)
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from harness.frames.writer import write_video

CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def _encode_with_cpus(path, frames, cpus, **kw) -> bytes:
    everything = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        write_video(path, frames, fps=8, **kw)
    finally:
        os.sched_setaffinity(0, everything)
    return path.read_bytes()


@pytest.mark.skipif(len(CPUS) < 2, reason="needs two CPUs to vary the thread environment")
def test_bytes_do_not_depend_on_the_cpus_the_process_may_use(tmp_path):
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (360, 640, 3), dtype=np.uint8) for _ in range(6)]
    one = _encode_with_cpus(tmp_path / "a.mp4", frames, {CPUS[0]})
    two = _encode_with_cpus(tmp_path / "b.mp4", frames, set(CPUS))
    assert one == two
    # the condition is real: with FFmpeg's automatic threading the same frames encode differently
    auto_one = _encode_with_cpus(tmp_path / "c.mp4", frames, {CPUS[0]}, threads=0)
    auto_two = _encode_with_cpus(tmp_path / "d.mp4", frames, set(CPUS), threads=0)
    assert auto_one != auto_two and auto_one == one
