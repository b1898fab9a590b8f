"""Clips decoded once per run and shared (harness/engine/frame_feed.py, harness/frames/shared.py, gate.py):
samples of one clip decode it once whatever the cache flags, the outputs are the same as without sharing,
memory is given back when no pending sample needs a clip, and decoding is spread over the cores within a
byte budget. Asserted by behaviour (decoder calls, files, bytes held), never by time."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from golden_outputs import output_digests

import harness.frames.loader as loader
from harness.config.run import RunConfig
from harness.engine.frame_feed import feed_order
from harness.engine.runner import run
from harness.frames import DecodedClip, MediaError
from harness.frames.gate import DecodeGate
from harness.frames.shared import SharedClips
from harness.plugins.loading import load_plugins


def _count_decodes(monkeypatch) -> list[str]:
    """Every call into a decoder (not the frame cache), by video path."""
    calls: list[str] = []
    original = loader.decode_frames

    def counting(path, *args, **kwargs):
        calls.append(path)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(loader, "decode_frames", counting)
    return calls


def _colors_run(tmp_path, root, name: str, **cfg):
    args = dict(tasks=["colors_qa"], model="random", data=root, progress=False, log_samples=True)
    return run(RunConfig(**{**args, **cfg, "output_path": tmp_path / name}), load_plugins())


@pytest.mark.parametrize("workers", ["2", "0"])
def test_samples_of_one_clip_decode_it_once_with_no_cache_and_outputs_match_unshared(
    tmp_path, colors_root, with_plugin, monkeypatch, workers
):
    from harness.api import media_identity

    monkeypatch.setenv("HARNESS_DECODE_WORKERS", workers)  # 0: decoded inline, in the generating thread
    videos = sorted((colors_root / "colors" / "videos").glob("test_*.mp4"))
    contents = {media_identity(v) for v in videos}  # identical files are one clip too (content identity)
    calls = _count_decodes(monkeypatch)
    shared = _colors_run(tmp_path, colors_root, "shared", no_cache=True)
    assert shared.results["task_results"]["colors_qa"]["n_scored"] == 24  # 12 videos, two questions each
    assert len(calls) == len(contents) < len(videos) < 24
    assert shared.stats["clips_loaded"] == len(contents)

    calls.clear()
    monkeypatch.setenv("HARNESS_SHARED_FRAMES_MB", "0")  # sharing off: every sample decodes its own clip
    unshared = _colors_run(tmp_path, colors_root, "unshared", no_cache=True)
    assert len(calls) == 24 == unshared.stats["clips_loaded"]
    digests = output_digests(tmp_path / "shared")
    assert digests == output_digests(tmp_path / "unshared")  # results and samples files, byte for byte
    assert any(name.startswith("random/samples_") for name in digests)


def test_sharing_also_spares_the_frame_cache_reads_of_a_run(tmp_path, colors_root, with_plugin, monkeypatch):
    cache = tmp_path / "cache"
    calls = _count_decodes(monkeypatch)
    first = _colors_run(tmp_path, colors_root, "first", cache_dir=cache)
    decoded = len(calls)
    assert first.stats["clips_loaded"] == decoded < 24
    for db in cache.glob("responses.sqlite*"):  # answers forgotten, frames kept on disk
        db.unlink()
    again = _colors_run(tmp_path, colors_root, "again", cache_dir=cache)
    assert len(calls) == decoded  # nothing decoded: every clip read from disk once, then shared
    assert again.stats["clips_loaded"] == decoded
    assert output_digests(tmp_path / "first") == output_digests(tmp_path / "again")


class _Inst:
    """The parts of an Instance that feed_order reads."""

    def __init__(self, name: str, video: str | None, clip: str | None = None):
        from harness.contract.messages import Message, Request, TextPart, VideoPart
        from harness.data.media import VideoRef
        from harness.frames import FrameSpec

        content = [TextPart(name)] + ([VideoPart(VideoRef(path=video))] if video else [])
        self.name, self.spec = name, FrameSpec(strategy="uniform", count=2)
        self.request = Request([Message("user", content)], {}, self.spec, "t", name, {})
        self.clip_keys = [clip or video] if video else []


def test_the_feed_order_puts_samples_of_one_video_and_of_one_clip_together():
    items = [
        _Inst("a1", "a.mp4", "a-first"),
        _Inst("b1", "b.mp4"),
        _Inst("text", None),
        _Inst("a2", "a.mp4", "a-second"),
        _Inst("a3", "a.mp4", "a-first"),
        _Inst("b2", "b.mp4"),
    ]
    order = [i.name for i in feed_order(items)]
    assert order == ["a1", "a3", "a2", "b1", "b2", "text"]  # groups by where each video first appears


def _clip() -> DecodedClip:
    """A 900-byte clip."""
    return DecodedClip(np.zeros((1, 1, 300, 3), np.uint8), [0], [0.0], 1.0, (300, 1), "test")


def test_a_clip_is_kept_only_while_a_pending_sample_needs_it():
    clips = SharedClips(max_bytes=10_000)
    loads: list[str] = []

    def load(key):
        return lambda: loads.append(key) or _clip()

    clips.expect(["a", "a", "a", "b"])
    first = clips.take("a", load("a"))
    assert clips.kept_bytes == first.nbytes  # two samples of "a" still to come
    assert clips.take("a", load("a")) is first
    clips.release("a")  # the third sample was answered meanwhile (another run): nobody needs "a" now
    assert clips.kept_bytes == 0
    clips.take("b", load("b"))
    assert clips.kept_bytes == 0  # no later sample of "b": not kept at all
    assert loads == ["a", "b"] and clips.stats["decoded"] == 2


def test_clips_beyond_the_cap_are_decoded_again_rather_than_kept():
    clips = SharedClips(max_bytes=1500)
    loads: list[str] = []
    clips.expect(["a", "a", "b", "b"])
    clips.take("a", lambda: loads.append("a") or _clip())
    clips.take("b", lambda: loads.append("b") or _clip())  # 900 + 900 > 1500: "b" is not kept
    assert clips.kept_bytes == 900  # "a" only
    clips.take("b", lambda: loads.append("b") or _clip())
    clips.take("a", lambda: loads.append("a") or _clip())
    assert loads == ["a", "b", "b"] and clips.kept_bytes == 0


def test_samples_asking_while_a_clip_decodes_wait_for_that_decode_and_share_its_error():
    clips = SharedClips(max_bytes=0, executor=ThreadPoolExecutor(2))
    started, release = threading.Event(), threading.Event()
    calls = []

    def slow_failure():
        calls.append(1)
        started.set()
        release.wait(5)
        raise MediaError("v.mp4", "corrupt", "simulated")

    clips.expect(["a", "a"])
    first = clips.claim("a", slow_failure)
    started.wait(5)
    second = clips.claim("a", slow_failure)  # decoding now: the same decode, even with nothing kept
    release.set()
    for fut in (first, second):
        with pytest.raises(MediaError, match="simulated"):
            fut.result(5)
    assert calls == [1]
    clips.done("a")
    clips.done("a")
    assert clips.remaining() == 0
    clips.executor.shutdown()


def test_the_gate_decodes_large_clips_alone_on_every_core_and_small_ones_side_by_side():
    gate = DecodeGate(budget_bytes=1000, workers=4, cores=4)
    assert gate.threads_for(800) == 5  # one fits the budget: frame threads, FFmpeg's cores + 1
    assert gate.threads_for(100) == 1  # four fit: one thread each
    assert DecodeGate(1000, 4, cores=4, remaining=lambda: 2).threads_for(100) == 2  # the last two clips
    assert DecodeGate(1000, 4, cores=1).threads_for(800) == 1
    inside, most = [0], [0]
    lock = threading.Lock()
    together = threading.Barrier(4, timeout=30)

    def decode(nbytes):
        with gate.admit(nbytes):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            if nbytes <= 250:
                together.wait()  # four small clips must be inside at once, or this breaks
            else:
                time.sleep(0.02)  # room for a second large clip to get in, were the gate broken
            with lock:
                inside[0] -= 1

    for size, expected in ((800, 1), (200, 4)):
        most[0] = 0
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(decode, [size] * 4))
        assert most[0] == expected, f"{size}-byte clips: {most[0]} decoded at once"
    assert gate.peak_bytes <= 1000


@pytest.mark.parametrize("gop", [None, {"x264-params": "keyint=10:min-keyint=10:scenecut=0"}])
def test_decoder_threads_and_frame_cache_maps_give_the_same_pixels(tmp_path, gop):
    from contextlib import contextmanager

    from harness.data.media import VideoRef
    from harness.frames import FrameCache, FrameSpec, load_clip
    from harness.frames.synthetic import read_marker, write_marker_video

    ref = VideoRef(path=write_marker_video(tmp_path / "v.mp4", 90, 320, 180, fps=25, options=gop))
    spec = FrameSpec(strategy="uniform", count=12, decoder="pyav")

    def threads(n):
        @contextmanager
        def admit(nbytes):
            yield n

        return admit

    plain = load_clip(ref, spec)
    for n in (1, 2, 4):  # FFmpeg's frame and slice threads are bit-exact
        assert np.array_equal(load_clip(ref, spec, admit=threads(n)).frames, plain.frames), f"{n} threads"
    assert [read_marker(f) for f in plain.frames] == plain.indices
    cache = FrameCache(tmp_path / "frames")
    load_clip(ref, spec, cache=cache)  # stores it
    hit = load_clip(ref, spec, cache=cache)
    assert hit.from_cache and np.array_equal(hit.frames, plain.frames)
    hit.frames[0, 0, 0] = 255 - hit.frames[0, 0, 0]  # a model may write to its frames: private to it
    again = load_clip(ref, spec, cache=cache)
    assert again.from_cache and np.array_equal(again.frames, plain.frames)


def test_ranks_get_whole_videos_in_balanced_shares():
    from harness.engine.distributed import shard

    videos = [f"v{i % 7}" for i in range(40)] + [None] * 5 + ["big"] * 30  # one video with many questions
    items = list(enumerate(videos))
    shares = [shard(items, rank, 4, lambda item: item[1]) for rank in range(4)]
    assert sorted(i for share in shares for i, _ in share) == list(range(len(items)))  # each once
    for share in shares:
        assert share == sorted(share)  # in dataset order
    owners = {v: {r for r, share in enumerate(shares) for _, w in share if w == v} for v in set(videos) - {None}}
    assert all(len(ranks) == 1 for v, ranks in owners.items() if v != "big")  # a video's samples on one rank
    fair = -(-len(items) // 4)
    assert len(owners["big"]) == 2  # larger than a rank's fair share: cut into fair-share pieces
    sizes = [len(share) for share in shares]
    assert max(sizes) - min(sizes) <= fair and sum(sizes) == len(items)
    assert shard(items, 0, 1, lambda item: item[1]) == items


def test_the_gate_says_how_many_clips_can_decode_at_once():
    gate = DecodeGate(budget_bytes=1000, workers=4, cores=4)
    assert gate.concurrency() == 4  # nothing seen yet
    with gate.admit(300):
        pass
    assert gate.concurrency() == 3
    with gate.admit(2000):  # larger than the budget: alone
        pass
    assert gate.concurrency() == 1


def test_the_gate_admits_clips_in_the_order_the_run_needs_them():
    gate = DecodeGate(budget_bytes=1000, workers=2, cores=2)
    order: list[int] = []
    gate.begin(0)  # the first clip's decode has started (probing), the second's reaches the gate first
    gate.begin(1)

    def decode(rank):
        with gate.admit(800, rank=rank):
            order.append(rank)

    late = threading.Thread(target=decode, args=(1,))
    late.start()
    late.join(0.2)
    assert late.is_alive() and order == []  # waits: a clip needed earlier is on its way
    decode(0)
    late.join(10)
    gate.end(0)
    gate.end(1)
    assert order == [0, 1]
    gate.begin(2)
    gate.end(2)  # a decode that never needed the gate (a cache hit) does not hold later ones back
    decode(3)
    assert order == [0, 1, 3]
