"""The frames side of the generation phase: the order samples are fed in, and each clip decoded once.

- Feed order: samples grouped by their first video, in the order each video first appears in the run, and
  inside a video the samples of one clip (same segments and frame spec) next to each other; otherwise the
  order is kept. Only the order of generation changes: records and the samples file stay in dataset order.
- Sharing: every pending sample announces the clips it needs (`plan`); a clip is decoded by the first sample
  whose batch starts decoding, shared with every other sample that asks for the same clip (frame-cache key:
  content, segments, spec, decoder), and kept between batches only while a pending sample still needs it,
  at most `$HARNESS_SHARED_FRAMES_MB` (default 1024) of such clips (harness.frames.shared). The cache flags
  do not matter: `--no_cache` turns off what is kept on disk, not sharing inside a run. `0` turns sharing off.
- Cores: `decode_workers()` clips are decoded at once on a pool; each decode gets the process's cores divided
  by the clips still to decode as decoder threads (one each while clips are plenty, more for the last ones).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Optional

from harness.contract.messages import VideoPart
from harness.engine.sample import Instance
from harness.errors import ConfigError
from harness.frames import FrameCache, MediaError, load_clip
from harness.frames.cache import DEFAULT_MAX_BYTES
from harness.frames.clip import DecodedClip
from harness.frames.content_hash import HashStore
from harness.frames.gate import DecodeGate, usable_cores
from harness.frames.loader import clip_key
from harness.frames.shared import SharedClips
from harness.frames.spec import FrameSpec

SHARED_FRAMES_MB = 1024  # default cap on clips kept for samples whose batch has not started
DECODE_MB = 256  # default budget of frames being decoded at once


def _env_int(name: str, default: int, what: str) -> int:
    env = os.environ.get(name, "").strip()
    if not env:
        return default
    try:
        return max(0, int(env))
    except ValueError:
        raise ConfigError(f"{name}={env!r} is not a whole number; set {what}") from None


def decode_workers() -> int:
    """Clips decoded at once: $HARNESS_DECODE_WORKERS, else one per usable core; 0 decodes inline."""
    return _env_int("HARNESS_DECODE_WORKERS", usable_cores(), "e.g. 2, or 0 to decode inline")


def shared_frames_bytes() -> int:
    """The cap on clips kept for later samples: $HARNESS_SHARED_FRAMES_MB (MiB), 0 turns sharing off."""
    return (
        _env_int("HARNESS_SHARED_FRAMES_MB", SHARED_FRAMES_MB, "a size in MiB, or 0 to share nothing") * 2**20
    )


def decode_bytes() -> int:
    """The budget of frames decoded at once: $HARNESS_DECODE_MB (MiB); one clip always decodes."""
    return _env_int("HARNESS_DECODE_MB", DECODE_MB, "a size in MiB") * 2**20


def frame_cache_bytes() -> int:
    """The frame cache's size cap: $HARNESS_FRAME_CACHE_MB (MiB; 0 keeps no frames), else 20 GiB
    (harness.frames.cache.DEFAULT_MAX_BYTES); the least recently used clips go first."""
    default_mb = DEFAULT_MAX_BYTES // 2**20
    return _env_int("HARNESS_FRAME_CACHE_MB", default_mb, "a size in MiB, e.g. 51200 for 50 GiB") * 2**20


def video_parts(inst: Instance) -> list[tuple[VideoPart, FrameSpec]]:
    """The video parts of a prepared instance's request, each with the frame spec it is decoded under."""
    if inst.request is None:
        return []
    return [
        (p, p.spec or inst.spec) for m in inst.request.messages for p in m.content if isinstance(p, VideoPart)
    ]


def feed_order(instances: list[Instance]) -> list[Instance]:
    """`instances` with the samples of one video together (by first appearance), those of one clip
    next to each other inside it; stable otherwise."""
    first: dict[object, int] = {}
    ranks = []
    for pos, inst in enumerate(instances):
        parts = video_parts(inst)
        if not parts:
            ranks.append((pos, pos, pos))
            continue
        video = first.setdefault(("video", parts[0][0].ref.path), pos)
        clip = first.setdefault(("clip", (inst.clip_keys or [None])[0] or pos), pos)
        ranks.append((video, clip, pos))
    return [instances[r[2]] for r in sorted(ranks)]


class FrameFeed:
    """Decoding for one generation phase: clip keys, the feed order, the decode pool and the shared clips
    (`hashes`: the run's content hashes, which the clip keys are made from)."""

    def __init__(
        self,
        cache: Optional[FrameCache],
        workers: int,
        keep_bytes: int,
        decode_budget: int = DECODE_MB << 20,
        hashes: Optional[HashStore] = None,
    ) -> None:
        self.cache = cache
        self.hashes = hashes
        self.workers = workers
        self.sharing = keep_bytes > 0
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="decode") if workers else None
        self.clips = SharedClips(keep_bytes, self.pool)
        self.gate = DecodeGate(decode_budget, max(1, workers), remaining=self.clips.remaining)
        self._open: dict[int, set[int]] = {}  # claimed instances -> their parts not yet collected
        self._rank: dict[str, int] = {}  # clip key -> where the feed first needs it

    def concurrency(self) -> int:
        """Clips that can decode at once (0: decoding is inline, in the generating thread)."""
        return self.gate.concurrency() if self.workers else 0

    def plan(self, leaders: list[Instance]) -> list[Instance]:
        """Key every video part of `leaders`, announce them to the shared clips, and return the feed order
        (each clip ranked by where the feed first needs it: decodes are admitted in that order)."""
        for inst in leaders:
            inst.clip_keys = [
                self._key(inst, n, p.ref, spec) for n, (p, spec) in enumerate(video_parts(inst))
            ]
            self.clips.expect(k for k in inst.clip_keys if k is not None)
        order = feed_order(leaders)
        for inst in order:
            for key in inst.clip_keys:
                if key is not None:
                    self._rank.setdefault(key, len(self._rank))
        return order

    def _key(self, inst: Instance, n: int, ref, spec: FrameSpec) -> Optional[str]:
        try:
            key = clip_key(ref, spec, self.hashes)
        except (MediaError, OSError, RuntimeError):  # decoding will report it, with the sample
            return None
        return key if self.sharing else f"{key}/{inst.index}/{n}"  # unshared: one clip per sample part

    @staticmethod
    def keys(batch: Iterable[Instance]) -> set[str]:
        """The distinct clips a batch needs."""
        return {k for inst in batch for k in (inst.clip_keys or ()) if k is not None}

    def claim(self, inst: Instance) -> None:
        """The instance's batch is decoding: start every clip it needs (several clips at once on the pool)."""
        if id(inst) in self._open or not inst.clip_keys:
            return
        self._open[id(inst)] = {n for n, key in enumerate(inst.clip_keys) if key is not None}
        for (p, spec), key in zip(video_parts(inst), inst.clip_keys, strict=True):
            if key is not None:
                self.clips.claim(key, self._loader(p.ref, spec, self._rank.get(key, len(self._rank))))

    def load(self, inst: Instance, n: int, ref, spec: FrameSpec) -> DecodedClip:
        """Part `n` of the instance: from the shared clips (decoded, or waited for) when it has a key."""
        key = inst.clip_keys[n] if inst.clip_keys and n < len(inst.clip_keys) else None
        if key is None:
            return load_clip(ref, spec, cache=self.cache, hashes=self.hashes)
        self.claim(inst)
        self._open[id(inst)].discard(n)
        return self.clips.collect(key)

    def finish(self, inst: Instance) -> None:
        """The instance needs no more clips (decoded, failed, or answered meanwhile): what it announced
        and did not take is counted off, so clips nobody needs are dropped."""
        keys, inst.clip_keys = inst.clip_keys or [], None
        open_parts = self._open.pop(id(inst), None)
        for n, key in enumerate(keys):
            if key is None:
                continue
            if open_parts is None:
                self.clips.release(key)
            elif n in open_parts:
                self.clips.done(key)

    def _loader(self, ref, spec: FrameSpec, rank: int):
        def load() -> DecodedClip:
            self.gate.begin(rank)
            try:
                admit = partial(self.gate.admit, rank=rank)
                return load_clip(ref, spec, cache=self.cache, admit=admit, hashes=self.hashes)
            finally:
                self.gate.end(rank)

        return load

    def stop(self) -> None:
        """Drop the decodes not started yet (their samples fail with CancelledError); running ones finish."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the pool: running decodes finish, queued ones are dropped (their samples fail to cancel)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
