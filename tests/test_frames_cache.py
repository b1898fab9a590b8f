"""Frame cache: hits equal the decoded arrays, keys track every input, two processes, LRU cap, full disk."""

from __future__ import annotations

import errno
import json
import logging
import multiprocessing as mp
import os
import shutil
import threading
import time

import numpy as np
import pytest

from harness.api import Segment, VideoRef, media_identity
from harness.frames import DecodedClip, FrameCache, FrameSpec, decoder_version_for, frame_cache_key, load_clip
from harness.frames.synthetic import read_marker, write_marker_video


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    d = tmp_path_factory.mktemp("frames_cache_video")
    return write_marker_video(d / "v.mp4", 60, 160, 90, fps=20)


def make_clip(seed: int, t: int = 3, h: int = 8, w: int = 10) -> DecodedClip:
    rng = np.random.default_rng(seed)
    return DecodedClip(
        frames=rng.integers(0, 256, (t, h, w, 3), dtype=np.uint8),
        indices=list(range(seed, seed + t)),
        timestamps=[i / 10 for i in range(t)],
        fps=10.0,
        source_size=(w * 2, h * 2),
        decoder="pyav-test",
    )


def test_cache_hit_returns_equal_arrays_and_metadata(tmp_path, video):
    cache = FrameCache(tmp_path / "frames")
    ref = VideoRef(path=video)
    spec = FrameSpec(strategy="uniform", count=6, max_side=64)
    cold = load_clip(ref, spec, cache=cache)
    warm = load_clip(ref, spec, cache=cache)
    assert not cold.from_cache and warm.from_cache
    assert np.array_equal(cold.frames, warm.frames) and warm.frames.dtype == np.uint8
    assert (warm.indices, warm.timestamps, warm.fps) == (cold.indices, cold.timestamps, cold.fps)
    assert (warm.source_size, warm.decoder) == (cold.source_size, cold.decoder)
    assert [read_marker(f) for f in warm.frames] == cold.indices


def test_entries_are_raw_bytes_with_a_json_header_not_pickle(tmp_path):
    cache = FrameCache(tmp_path)
    clip = make_clip(1)
    cache.put("ab" * 20, clip)
    raw = cache.path_for("ab" * 20).read_bytes()
    assert raw[:4] == b"HFC2"
    hlen = int.from_bytes(raw[4:8], "little")
    meta = json.loads(raw[8 : 8 + hlen])
    assert meta["shape"] == [3, 8, 10, 3] and meta["indices"] == [1, 2, 3]
    assert raw.endswith(clip.frames.tobytes())


def test_damaged_entry_is_a_miss_and_removed(tmp_path):
    cache = FrameCache(tmp_path)
    cache.put("cd" * 20, make_clip(2))
    path = cache.path_for("cd" * 20)
    path.write_bytes(path.read_bytes()[:-10])
    assert cache.get("cd" * 20) is None
    assert not path.exists()


def test_key_changes_with_every_input_and_only_then(tmp_path, video):
    ref = VideoRef(path=video)
    spec = FrameSpec(strategy="uniform", count=8)
    mid = media_identity(video)
    base = frame_cache_key(mid, ref, spec, "pyav-1")
    # not otherwise: same inputs, another path to the same bytes, another label
    copy = tmp_path / "copy.mp4"
    shutil.copy(video, copy)
    assert frame_cache_key(media_identity(copy), VideoRef(path=str(copy), label="B"), spec, "pyav-1") == base
    assert frame_cache_key(mid, ref, FrameSpec(strategy="uniform", count=8), "pyav-1") == base
    # file content
    other = write_marker_video(tmp_path / "other.mp4", 61, 160, 90, fps=20)
    assert frame_cache_key(media_identity(other), ref, spec, "pyav-1") != base
    # segments (bounds, reverse, repeat)
    seg = Segment(start=0, end=10)
    keys = {
        frame_cache_key(mid, VideoRef(path=video, segments=(s,)), spec, "pyav-1")
        for s in (
            seg,
            Segment(start=0, end=11),
            Segment(start=0, end=10, reverse=True),
            Segment(start=0, end=10, repeat=2),
        )
    }
    assert len(keys) == 4 and base not in keys
    # every spec field
    variants = [
        {"count": 9},
        {"strategy": "segment"},
        {"max_frames": 4},
        {"max_side": 64},
        {"max_height": 64},
        {"trim": 1},
        {"decoder": "pyav"},
        {"rate": 2.0},
    ]
    spec_keys = {frame_cache_key(mid, ref, spec.model_copy(update=v), "pyav-1") for v in variants}
    assert len(spec_keys) == len(variants) and base not in spec_keys
    # decoder version
    assert frame_cache_key(mid, ref, spec, "pyav-2") != base


def test_a_changed_file_never_serves_stale_frames(tmp_path):
    path = tmp_path / "v.mp4"
    write_marker_video(path, 30, 64, 48)
    cache = FrameCache(tmp_path / "cache")
    spec = FrameSpec(strategy="uniform", count=3)
    first = load_clip(VideoRef(path=str(path)), spec, cache=cache)
    time.sleep(0.01)
    write_marker_video(path, 20, 64, 48)
    second = load_clip(VideoRef(path=str(path)), spec, cache=cache)
    assert not second.from_cache
    assert first.indices == [0, 15, 29] and second.indices == [0, 10, 19]


def _worker(root: str, worker: int, rounds: int, out) -> None:
    cache = FrameCache(root, max_bytes=10**9)
    errors = 0
    for r in range(rounds):
        for k in range(6):
            key = f"{k:02d}" * 20
            clip = make_clip(k, t=4, h=32, w=48)
            if (r + k + worker) % 2:
                cache.put(key, clip)
            got = cache.get(key)
            if got is not None and not np.array_equal(got.frames, clip.frames):
                errors += 1
    out.put(errors)


def test_two_processes_share_one_cache(tmp_path):
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(str(tmp_path), w, 15, out)) for w in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert results == [0, 0]
    cache = FrameCache(tmp_path)
    for k in range(6):
        assert np.array_equal(cache.get(f"{k:02d}" * 20).frames, make_clip(k, t=4, h=32, w=48).frames)
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_lru_eviction_keeps_the_total_under_the_cap(tmp_path):
    probe = FrameCache(tmp_path / "probe")
    probe.put("00" * 20, make_clip(0))
    one = probe.path_for("00" * 20).stat().st_size  # every test entry has this size
    cache = FrameCache(tmp_path / "lru", max_bytes=3 * one)
    keys = [f"{i:02d}" * 20 for i in range(5)]
    for i, key in enumerate(keys[:3]):
        cache.put(key, make_clip(i))
        os.utime(cache.path_for(key), (1000 + i, 1000 + i))
    assert cache.get(keys[0]) is not None  # a hit makes keys[0] the youngest
    cache.put(keys[3], make_clip(3))
    cache.put(keys[4], make_clip(4))
    assert cache.total_bytes() <= 3 * one
    assert cache.get(keys[1]) is None and cache.get(keys[2]) is None  # the two oldest went
    assert all(cache.get(k) is not None for k in (keys[0], keys[3], keys[4]))


def test_full_disk_disables_the_cache_and_the_run_goes_on(tmp_path, video, monkeypatch, caplog):
    import harness.frames.cache as cache_mod

    def disk_full(tmp, clip):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_mod, "_write_entry", disk_full)
    cache = FrameCache(tmp_path / "c")
    spec = FrameSpec(strategy="uniform", count=3)
    with caplog.at_level(logging.WARNING, logger="harness.frames.cache"):
        clip = load_clip(VideoRef(path=video), spec, cache=cache)
        again = load_clip(VideoRef(path=video), spec, cache=cache)
    assert [read_marker(f) for f in clip.frames] == clip.indices
    assert not again.from_cache
    assert cache.disabled_reason and "disk full" in cache.disabled_reason
    assert sum("frame cache disabled" in r.message for r in caplog.records) == 1
    assert not list((tmp_path / "c").rglob("*.tmp"))


def test_any_write_error_disables_writes(tmp_path, monkeypatch):
    cache = FrameCache(tmp_path)

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "read-only")

    monkeypatch.setattr(os, "replace", refuse)
    cache.put("ef" * 20, make_clip(5))
    assert cache.disabled_reason and "write failed" in cache.disabled_reason
    assert cache.get("ef" * 20) is None


def _rewrite_header(path, edit) -> None:
    raw = path.read_bytes()
    hlen = int.from_bytes(raw[4:8], "little")
    meta = edit(json.loads(raw[8 : 8 + hlen]))
    header = json.dumps(meta).encode()
    head = raw[:4] + len(header).to_bytes(4, "little") + header
    head += b"\0" * (-len(head) % 64)
    payload_at = 8 + hlen + (-(8 + hlen) % 64)
    path.write_bytes(head + raw[payload_at:])


@pytest.mark.parametrize(
    "damage",
    ["no_shape", "shape_not_a_list", "header_not_an_object", "wrong_length", "bit_flip", "extra_bytes"],
)
def test_a_corrupt_entry_is_dropped_with_a_warning_and_recomputed(tmp_path, video, damage, caplog):
    cache = FrameCache(tmp_path / "frames")
    ref = VideoRef(path=video)
    spec = FrameSpec(strategy="uniform", count=4, max_side=64)
    cold = load_clip(ref, spec, cache=cache)
    key = frame_cache_key(media_identity(video), ref, spec, decoder_version_for(spec))
    path = cache.path_for(key)
    if damage == "no_shape":
        _rewrite_header(path, lambda m: {k: v for k, v in m.items() if k != "shape"})
    elif damage == "shape_not_a_list":
        _rewrite_header(path, lambda m: {**m, "shape": 7})
    elif damage == "header_not_an_object":
        _rewrite_header(path, lambda m: [m])
    elif damage == "wrong_length":
        _rewrite_header(path, lambda m: {**m, "shape": [m["shape"][0] - 1, *m["shape"][1:]]})
    elif damage == "bit_flip":  # same length, one pixel changed: only the checksum can tell
        raw = bytearray(path.read_bytes())
        raw[-5] ^= 0x40
        path.write_bytes(bytes(raw))
    else:
        path.write_bytes(path.read_bytes() + b"\0" * 16)
    with caplog.at_level(logging.WARNING, logger="harness.frames.cache"):
        again = load_clip(ref, spec, cache=cache)
    assert not again.from_cache and np.array_equal(again.frames, cold.frames)
    assert "dropping unreadable entry" in caplog.text
    assert load_clip(ref, spec, cache=cache).from_cache  # recomputed and stored again


def test_a_fifo_where_an_entry_belongs_is_dropped_not_waited_on(tmp_path, video, caplog):
    """A FIFO (or anything that is not a regular file) at an entry's path is a damaged entry: dropped with a
    warning and the clip decoded again (before: opening it blocked the run forever)."""
    cache = FrameCache(tmp_path / "frames")
    ref = VideoRef(path=video)
    spec = FrameSpec(strategy="uniform", count=4, max_side=64)
    cold = load_clip(ref, spec, cache=cache)
    path = cache.path_for(frame_cache_key(media_identity(video), ref, spec, decoder_version_for(spec)))
    path.unlink()
    os.mkfifo(path)
    got: list = []
    with caplog.at_level(logging.WARNING, logger="harness.frames.cache"):
        worker = threading.Thread(target=lambda: got.append(load_clip(ref, spec, cache=cache)), daemon=True)
        worker.start()
        worker.join(60)
    assert got, "load_clip waited on the FIFO"
    assert not got[0].from_cache and np.array_equal(got[0].frames, cold.frames)
    assert "dropping unreadable entry" in caplog.text and "not a regular file" in caplog.text
    assert load_clip(ref, spec, cache=cache).from_cache  # the FIFO is gone, the entry written again
