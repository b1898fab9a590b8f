"""Frame samplers: hand-checked indices for every strategy, the max_frames cap and the TempCloze protocol."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.frames import FrameSpec, sample_indices, target_size


def test_uniform_includes_both_endpoints_rounded_half_up():
    assert sample_indices(10, FrameSpec(strategy="uniform", count=4), 25) == [0, 3, 6, 9]
    # linspace(0, 5, 3) = 0, 2.5, 5 -> half up -> 3
    assert sample_indices(6, FrameSpec(strategy="uniform", count=3), 25) == [0, 3, 5]
    assert sample_indices(160, FrameSpec(strategy="uniform", count=2), 32) == [0, 159]
    assert sample_indices(10, FrameSpec(strategy="uniform", count=1), 25) == [0]


def test_uniform_with_more_frames_than_the_clip_repeats_positions():
    assert sample_indices(3, FrameSpec(strategy="uniform", count=5), 25) == [0, 1, 1, 2, 2]


def test_segment_bin_midpoints():
    # N=10, n=4: int((i + .5) * 10 / 4) = 1, 3, 6, 8
    assert sample_indices(10, FrameSpec(strategy="segment", count=4), 25) == [1, 3, 6, 8]
    # more bins than frames: n = min(count, N)
    assert sample_indices(3, FrameSpec(strategy="segment", count=8), 25) == [0, 1, 2]


def test_segment_tempcloze_protocol_trim_one_count_sixteen():
    n_frames = 50
    got = sample_indices(n_frames, FrameSpec(strategy="segment", count=16, trim=1), 25)
    assert got == [1 + int((i + 0.5) * (n_frames - 2) / 16) for i in range(16)]
    assert got[:4] == [2, 5, 8, 11]  # 1 + int(1.5), 1 + int(4.5), 1 + int(7.5), 1 + int(10.5)
    assert 0 not in got and n_frames - 1 not in got


def test_segment_trim_that_leaves_nothing_is_dropped():
    assert sample_indices(2, FrameSpec(strategy="segment", count=4, trim=1), 25) == [0, 1]


def test_fps_every_one_over_rate_seconds():
    assert sample_indices(100, FrameSpec(strategy="fps", rate=1), 25) == [0, 25, 50, 75]
    assert sample_indices(10, FrameSpec(strategy="fps", rate=2), 5) == [0, 3, 5, 8]  # 0, 2.5, 5, 7.5
    # rate above the video's fps gives each frame once
    assert sample_indices(4, FrameSpec(strategy="fps", rate=100), 25) == [0, 1, 2, 3]


def test_fps_without_a_frame_rate_is_an_error():
    with pytest.raises(ValueError, match="frame rate"):
        sample_indices(10, FrameSpec(strategy="fps", rate=1), 0)


def test_all_and_max_frames_cap_resamples_uniformly():
    assert sample_indices(5, FrameSpec(strategy="all"), 25) == [0, 1, 2, 3, 4]
    assert sample_indices(10, FrameSpec(strategy="all", max_frames=3), 25) == [0, 5, 9]
    # cap over segment midpoints picks among the midpoints
    mids = sample_indices(100, FrameSpec(strategy="segment", count=10), 25)
    capped = sample_indices(100, FrameSpec(strategy="segment", count=10, max_frames=4), 25)
    assert capped == [mids[0], mids[3], mids[6], mids[9]]


def test_empty_clip_gives_no_positions():
    assert sample_indices(0, FrameSpec(strategy="uniform", count=8), 25) == []


@given(n=st.integers(1, 500), count=st.integers(1, 64), trim=st.integers(0, 5))
def test_positions_are_in_range_and_ordered(n, count, trim):
    for spec in (
        FrameSpec(strategy="uniform", count=count),
        FrameSpec(strategy="segment", count=count, trim=trim),
        FrameSpec(strategy="all", max_frames=count),
    ):
        got = sample_indices(n, spec, 30)
        assert got and all(0 <= p < n for p in got)
        assert got == sorted(got)


def test_target_size_keeps_aspect_and_never_upscales():
    assert target_size(1920, 1080, FrameSpec(strategy="all", max_side=448)) == (448, 252)
    assert target_size(1080, 1920, FrameSpec(strategy="all", max_side=448)) == (252, 448)
    assert target_size(1920, 1080, FrameSpec(strategy="all", max_height=360)) == (640, 360)
    assert target_size(160, 90, FrameSpec(strategy="all", max_side=448)) == (160, 90)
    assert target_size(1920, 1080, FrameSpec(strategy="all", max_side=448, max_height=100)) == (178, 100)
