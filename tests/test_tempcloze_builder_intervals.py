"""TempCloze interval rules: gap position and length, alignment offsets and clipping, thirds, repeats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness_builders.tempcloze.intervals import (
    GapRejected,
    GapRules,
    Piece,
    alignment_clips,
    alignment_offset,
    item_rng,
    plan_indices,
    plan_item,
    progression_clips,
    semantic_clips_paper,
    semantic_clips_release,
    thirds,
)
from harness_builders.tempcloze.layout import ALL_CLIPS

SIZES = [40, 64, 97, 160, 480, 1800]


@pytest.mark.parametrize("n", SIZES)
def test_gap_inside_central_half_and_20_to_40_percent(n):
    for seed in range(40):
        plan = plan_item(n, GapRules(), item_rng(seed, f"v{n}"))
        a, b = plan.gap
        assert a >= 0.25 * n and b <= 0.75 * n
        assert 0.2 * n - 1e-9 <= b - a <= 0.4 * n + 1e-9 or b - a == GapRules().min_gap_frames


@pytest.mark.parametrize("n", SIZES)
def test_context_clips_tile_the_video(n):
    plan = plan_item(n, GapRules(), item_rng(3, "x"))
    a, b = plan.gap
    assert plan_indices(plan.clips["before"]) == list(range(0, a))
    assert plan_indices(plan.clips["GT"]) == list(range(a, b))
    assert plan_indices(plan.clips["after"]) == list(range(b, n))
    assert set(plan.clips) == set(ALL_CLIPS)


@pytest.mark.parametrize("n", SIZES)
def test_alignment_offsets_are_half_the_gap_within_bounds(n):
    for seed in range(20):
        a, b = plan_item(n, GapRules(), item_rng(seed, "al")).gap
        d = alignment_offset(b - a, n)
        assert math.ceil(0.1 * n) <= d <= max(math.ceil(0.1 * n), math.floor(0.2 * n))
        assert abs(d - (b - a) / 2) <= 0.5 + 1e-9 or d in (math.ceil(0.1 * n), math.floor(0.2 * n))
        clips = alignment_clips(a, b, n)
        assert clips["A/Early"] == (Piece(a - d, b - d),)
        assert clips["A/Late"] == (Piece(a + d, b + d),)
        assert clips["A/Wide"] == (Piece(a - d, b + d),)
        for plan in clips.values():
            assert 0 <= plan[0].start < plan[0].end <= n


def test_alignment_offset_clipping():
    assert alignment_offset(10, 1000) == 100  # l/2 = 5 < 0.1T -> raised to 0.1T
    assert alignment_offset(900, 1000) == 200  # l/2 = 450 > 0.2T -> lowered to 0.2T
    assert alignment_offset(300, 1000) == 150


def test_alignment_clips_clipped_to_the_video():
    clips = alignment_clips(2, 30, 40)  # a gap near the start: Advanced would start before frame 0
    assert clips["A/Early"][0].start == 0
    clips = alignment_clips(10, 38, 40)
    assert clips["A/Late"][0].end == 40 and clips["A/Wide"][0].end == 40


@pytest.mark.parametrize("a,b", [(10, 40), (10, 41), (10, 42), (5, 11), (100, 257)])
def test_progression_thirds_reorder_and_repeat(a, b):
    t1, t2 = thirds(a, b)
    n = b - a
    assert abs((t1 - a) - n / 3) <= 0.5 and abs((t2 - a) - 2 * n / 3) <= 0.5
    clips = progression_clips(a, b)
    assert plan_indices(clips["C/Reverse"]) == list(range(b - 1, a - 1, -1))
    assert plan_indices(clips["C/Shuffle"]) == list(range(t1, t2)) + list(range(t2, b)) + list(range(a, t1))
    assert plan_indices(clips["C/Loop"]) == list(range(t1, t2)) * 3
    assert sorted(plan_indices(clips["C/Shuffle"])) == list(range(a, b))


@pytest.mark.parametrize("n", [64, 160, 480])
def test_semantic_paper_rule_same_length_outside_gap_and_distinct(n):
    for seed in range(30):
        plan = plan_item(n, GapRules(semantic="paper"), item_rng(seed, "sem"))
        a, b = plan.gap
        starts = []
        for name in ("S/Rand1", "S/Rand2", "S/Rand3"):
            (piece,) = plan.clips[name]
            assert piece.end - piece.start == b - a
            assert piece.end <= a or piece.start >= b  # never overlaps the gap
            assert 0 <= piece.start and piece.end <= n
            starts.append(piece.start)
        sep = max(1, round(0.25 * (b - a)))
        assert all(abs(x - y) >= sep for i, x in enumerate(starts) for y in starts[i + 1 :])


def test_semantic_paper_rule_none_without_room():
    # gap of 0.4T in the middle: neither side holds a clip of the gap's length
    assert semantic_clips_paper(30, 70, 100, np.random.default_rng(0)) is None


@pytest.mark.parametrize("n", [64, 160, 480])
def test_semantic_release_rule_lengths_and_regions(n):
    for seed in range(30):
        plan = plan_item(n, GapRules(semantic="release"), item_rng(seed, "rel"))
        a, b = plan.gap
        spans = set()
        for name in ("S/Rand1", "S/Rand2", "S/Rand3"):
            (piece,) = plan.clips[name]
            assert piece.end - piece.start >= math.ceil(0.2 * n)
            assert piece.end <= a or piece.start >= b
            spans.add((piece.start, piece.end))
        assert len(spans) == 3


def test_semantic_release_direct():
    clips = semantic_clips_release(30, 60, 100, np.random.default_rng(1))
    assert clips is not None and len(clips) == 3


@pytest.mark.parametrize("n", [64, 160, 480])
def test_all_candidates_of_a_dimension_are_distinct(n):
    from harness_builders.tempcloze.layout import DIMENSIONS

    for seed in range(10):
        plan = plan_item(n, GapRules(), item_rng(seed, "d"))
        for names in DIMENSIONS.values():
            seqs = [tuple(plan_indices(plan.clips[c])) for c in ("GT", *names)]
            assert len(set(seqs)) == 4


def test_motion_check_resamples_up_to_three_times():
    calls = []

    def reject_twice(a, b):
        calls.append((a, b))
        return len(calls) == 3

    plan = plan_item(160, GapRules(), item_rng(0, "m"), reject_twice, max_tries=3)
    assert plan.attempts == 3 and plan.gap == calls[-1]
    calls.clear()
    with pytest.raises(GapRejected) as err:
        plan_item(160, GapRules(), item_rng(0, "m"), lambda a, b: calls.append(1) and False, max_tries=3)
    assert err.value.reason == "no_motion" and len(calls) == 3


def test_too_short_video_rejected():
    with pytest.raises(GapRejected) as err:
        plan_item(12, GapRules(), item_rng(0, "s"))
    assert err.value.reason == "too_short"


def test_same_seed_same_plan_other_seed_differs():
    p1 = plan_item(480, GapRules(), item_rng(7, "clip"))
    p2 = plan_item(480, GapRules(), item_rng(7, "clip"))
    assert p1 == p2
    others = {plan_item(480, GapRules(), item_rng(s, "clip")).gap for s in range(8, 14)}
    assert len(others) > 1
