"""Clips decoded once per run and shared by every sample that asks for the same clip and frame spec.

The generation pipeline tells the store how many pending samples need each clip (`expect`, keyed by
`clip_key`: content identity, segments, spec, decoder). The first sample to ask decodes the clip (`take` or
`start`, on the decode pool when one is given); samples asking meanwhile wait for that decode; the clip is
then kept for later samples only while one of them still needs it (`take` and `release` count them down)
and the kept clips fit `max_bytes`. A clip that does not fit is decoded again by the sample that needs it
later. A failed decode is shared the same way: every sample of that clip gets the same error. Nothing here
touches the frame cache on disk: `load` (usually `load_clip` with the cache) decides that.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError, Executor, Future
from dataclasses import dataclass
from typing import Optional

from harness.frames.clip import DecodedClip

Loader = Callable[[], DecodedClip]


@dataclass
class _Clip:
    """One clip's bookkeeping: samples that will still take it, those of them whose batch is being decoded
    (claimed), its decode, and whether it is kept for the others (`size` counted against the cap)."""

    pending: int = 0
    claimed: int = 0
    future: Optional[Future] = None
    kept: bool = False
    size: int = 0


class SharedClips:
    """Decoded clips of one run, by clip key, kept while a pending sample needs them (thread-safe).

    A sample's life here: `expect` when the run is planned; `claim` when its batch starts decoding (starts
    the decode if nobody did); `collect` to wait for the frames, or `done` when it needs them no more (it
    failed on another part); `release` if it never claimed (answered by another run meanwhile).
    `take` = claim, then collect."""

    def __init__(self, max_bytes: int, executor: Optional[Executor] = None) -> None:
        self.max_bytes = max(0, int(max_bytes))
        self.executor = executor
        self._lock = threading.Lock()
        self._clips: dict[str, _Clip] = {}
        self._kept_bytes = 0
        self.stats = {"decoded": 0, "taken": 0, "kept_bytes_peak": 0}

    @property
    def kept_bytes(self) -> int:
        """Bytes of the clips kept for samples whose batch has not started (the cap's measure)."""
        return self._kept_bytes

    def expect(self, keys: Iterable[str]) -> None:
        """One more pending sample will take each of `keys`."""
        with self._lock:
            for key in keys:
                self._clips.setdefault(key, _Clip()).pending += 1

    def claim(self, key: str, load: Loader) -> Future:
        """A pending sample's batch is being decoded: start decoding `key` (on the pool, else now) unless
        it is decoding or kept; the clip's future."""
        with self._lock:
            rec = self._clips.setdefault(key, _Clip())
            rec.claimed += 1
            rec.pending = max(rec.pending, rec.claimed)  # a sample nobody announced
            fut, starts = rec.future, rec.future is None
            if starts:
                fut = rec.future = Future()
                self.stats["decoded"] += 1
        if not starts:
            return fut
        if self.executor is None:
            self._run(key, fut, load)
        else:
            job = self.executor.submit(self._run, key, fut, load)
            job.add_done_callback(lambda j: _cancel_if(j, fut))
        return fut

    def done(self, key: str) -> None:
        """A claimed sample has its frames (or needs them no more)."""
        with self._lock:
            rec = self._clips.get(key)
            if rec is not None:
                rec.claimed = max(0, rec.claimed - 1)
                rec.pending = max(0, rec.pending - 1)
                self._settle(key)

    def release(self, key: str) -> None:
        """A pending sample that never claimed `key` will not take it."""
        with self._lock:
            rec = self._clips.get(key)
            if rec is not None:
                rec.pending = max(rec.claimed, rec.pending - 1)
                self._settle(key)

    def collect(self, key: str) -> DecodedClip:
        """A claimed sample takes its clip: waits for the decode, then counts itself done (raises what the
        decode raised)."""
        with self._lock:
            fut = self._clips[key].future  # a claim holds it
            self.stats["taken"] += 1
        try:
            return fut.result()
        finally:
            self.done(key)

    def take(self, key: str, load: Loader) -> DecodedClip:
        """The clip for `key`, decoded now or shared (claim, then collect)."""
        self.claim(key, load)
        return self.collect(key)

    def _settle(self, key: str) -> None:
        """Keep a finished clip for samples still to come if it fits the cap; drop it once no claimed
        sample holds it and no later one is served by it (lock held)."""
        rec = self._clips[key]
        fut = rec.future
        if fut is not None and fut.done():
            later = rec.pending - rec.claimed
            failed = fut.cancelled() or fut.exception() is not None
            if later > 0 and not rec.kept:
                size = 0 if failed else fut.result().nbytes
                if self._kept_bytes + size <= self.max_bytes:
                    rec.kept, rec.size = True, size
                    self._kept_bytes += size
                    self.stats["kept_bytes_peak"] = max(self.stats["kept_bytes_peak"], self._kept_bytes)
            if rec.claimed == 0 and (later <= 0 or not rec.kept):
                self._kept_bytes -= rec.size if rec.kept else 0
                rec.future, rec.kept, rec.size = None, False, 0  # a later sample decodes it again
        if rec.pending <= 0 and rec.claimed <= 0 and rec.future is None:
            del self._clips[key]

    def remaining(self) -> int:
        """Clips that pending samples need and that are not decoded yet (or decoding now)."""
        with self._lock:
            return sum(
                1 for c in self._clips.values() if c.pending > 0 and (c.future is None or not c.future.done())
            )

    def _run(self, key: str, fut: Future, load: Loader) -> None:
        try:
            clip = load()
        except BaseException as exc:  # shared with every sample of this clip, like a result
            fut.set_exception(exc)
        else:
            fut.set_result(clip)
        with self._lock:
            if key in self._clips:
                self._settle(key)


def _cancel_if(job: Future, fut: Future) -> None:
    """A decode the pool dropped unstarted (it shut down: the run stopped) fails its waiting samples."""
    if job.cancelled() and not fut.done():
        fut.set_exception(CancelledError("decoding stopped: the run is ending"))
