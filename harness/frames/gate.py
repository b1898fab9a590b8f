"""How many clips are decoded at once, in which order, and with how many decoder threads each.

Clips are admitted while the frames being decoded fit a byte budget (always at least one clip, at most
`workers`), in the order the run needs them (a clip waits for the started decodes of clips needed before it:
decoded out of order, a clip would wait in memory for the batches ahead of it), and the process's cores are
divided among the clips that can decode together: FFmpeg's own
threads for a clip that decodes alone (large frames, or the last clips of a run), one thread each when
several clips fit. Large frames are where decoder threads pay off (more work per frame between the threads'
hand-offs) and where several clips at once would cost the most memory; small clips decode best side by side.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Optional


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask, e.g. under taskset or a container's cpuset)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


class DecodeGate:
    """Admits decodes under a byte budget and tells each how many decoder threads to use (thread-safe)."""

    def __init__(
        self, budget_bytes: int, workers: int, cores: int = 0, remaining: Callable[[], int] = lambda: 1 << 30
    ) -> None:
        self.budget = max(0, int(budget_bytes))
        self.workers = max(1, workers)
        self.cores = cores or usable_cores()
        self.remaining = remaining  # clips still to decode in the run (the tail decodes with more threads)
        self._cond = threading.Condition()
        self._active = 0
        self._bytes = 0
        self._started: set[int] = set()  # order ranks of decodes started and not yet admitted
        self.peak_bytes = 0  # most bytes of frames being decoded at once
        self.largest = 0  # the largest clip admitted so far

    def concurrency(self) -> int:
        """Clips that can decode at once: the workers, fewer when the largest clip so far fills the budget."""
        if not self.largest:
            return self.workers
        return max(1, min(self.workers, self.budget // self.largest))

    def threads_for(self, nbytes: int) -> int:
        """Decoder threads for a clip of `nbytes`: the cores over the clips that can decode beside it; a clip
        that decodes alone gets cores + 1, FFmpeg's own count for frame threads (a frame thread waits on the
        previous frame's rows now and then: one more keeps every core busy)."""
        fit = max(1, self.budget // max(1, nbytes))
        together = max(1, min(self.workers, fit, self.remaining()))
        if together == 1 and self.cores > 1:
            return self.cores + 1
        return max(1, self.cores // together)

    def begin(self, rank: int) -> None:
        """A decode of the clip needed at `rank` in the run's order has started (before its probe)."""
        with self._cond:
            self._started.add(rank)

    def end(self, rank: int) -> None:
        """That decode is over (admitted and done, or never needing the gate: a cache hit, an error)."""
        with self._cond:
            self._started.discard(rank)
            self._cond.notify_all()

    def _blocked(self, nbytes: int, rank: Optional[int]) -> bool:
        if rank is not None and any(r < rank for r in self._started):
            return True  # a clip needed earlier is on its way: it goes first
        return bool(self._active) and (self._active >= self.workers or self._bytes + nbytes > self.budget)

    @contextmanager
    def admit(self, nbytes: int, rank: Optional[int] = None) -> Iterator[int]:
        """Wait until a clip of `nbytes` fits beside those decoding (or none is) and no started decode of a
        clip needed earlier (smaller `rank`) waits; hold its place while the block decodes it; yields its
        decoder threads."""
        with self._cond:
            while self._blocked(nbytes, rank):
                self._cond.wait()
            self._started.discard(rank)
            self._active += 1
            self._bytes += nbytes
            self.peak_bytes = max(self.peak_bytes, self._bytes)
            self.largest = max(self.largest, nbytes)
        try:
            yield self.threads_for(nbytes)
        finally:
            with self._cond:
                self._active -= 1
                self._bytes -= nbytes
                self._cond.notify_all()
