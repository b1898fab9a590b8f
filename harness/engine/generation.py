"""The generation pipeline: from instances that missed the response cache to answers, losing no work.

What it guarantees (docs/reliability.md, docs/frames.md):
- identical requests (same cache key) inside one run are generated once; the others share the answer;
- before each batch is decoded and again before it is sent, the response cache is read again, so runs
  sharing a cache dir pick up each other's finished answers;
- decoding overlaps generation: the next batches are decoded while the model works, at most
  `2 * slots + prefetch` decoded batches waiting, or more while the waiting batches share their clips and
  need fewer distinct clips than can decode at once (bounded memory; harness.engine.frame_feed feeds the
  samples of one video together, decodes each clip once and spreads the decoding over the cores);
- requests in flight = `model.max_in_flight`: with a served model, `max_in_flight // batch_size` calls run
  at once from threads (at least one), fed as answers return;
- each answer is committed to the response cache as it arrives (a kill repeats no finished call), answers
  of a partly failed call are kept, and only the requests that failed become `generation` errors;
- `--strict` stops before the next model call once any sample has an error or an answer its task cannot
  parse (`Generation.check`; the calls in flight finish and are cached); nothing is scored here;
- an interrupt (harness.engine.interrupts) keeps every answer that arrived: those waiting to be handled are
  committed as the pipeline ends, and those that arrive after it are committed as they come.
Generation order may differ from dataset order; records are ordered by the instances, never by arrival.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Optional

from harness.cache.responses import ResponseCache
from harness.contract.messages import Request, Response
from harness.contract.model import Model, Result
from harness.engine.frame_feed import FrameFeed
from harness.engine.interrupts import protected
from harness.engine.sample import Instance, sample_error
from harness.errors import GenerationTimeout, HarnessError, StrictModeError

_DONE = object()  # a generate call finished
_POLL_S = 0.1  # how often to look for answers another run is making
SHARED_AHEAD = 64  # batches beyond the usual window that may wait when they need no new clip


@dataclass
class Generation:
    """What the pipeline needs of the run it serves (the evaluator makes one; the pipeline sees nothing else)."""

    model: Model
    responses: Optional[ResponseCache]  # None with --no_cache
    # the sample's request with frames filled in, None on a media error (the instance's error says why)
    decode: Callable[[Instance, FrameFeed], Optional[Request]]
    # --strict: checks a finished sample, raising StrictModeError on the first bad one (it scores nothing)
    check: Callable[[Instance], None]
    stats: dict[str, int]  # the run's counters: cache_hits and generated are counted here
    batch_size: int = 1
    strict: bool = False


class GenerationPipeline:
    """Fills `response` or `error` of every instance given (all cache misses at the run's start)."""

    def __init__(self, generation: Generation, bar: Any, feed: FrameFeed, prefetch: int = 2) -> None:
        self.generation = generation
        self.bar = bar
        self.feed = feed
        self.bs = max(1, generation.batch_size)
        self.slots = max(1, int(generation.model.max_in_flight or 1) // self.bs)
        self.ahead = 2 * self.slots + max(0, prefetch)  # a full second round ready when a round returns
        self.followers: dict[str, list[Instance]] = {}
        self.stop: Optional[BaseException] = None  # the StrictModeError or fatal error that ends the run
        self._results: queue.Queue = queue.Queue()
        self._closed = False  # the loop ended: answers still arriving are committed where they land
        self._arrival = threading.Lock()

    # -- the loop ----------------------------------------------------------------------------------
    def run(self, todo: list[Instance]) -> None:
        leaders = []
        for inst in todo:  # the first of identical requests is generated, the others follow it
            if inst.key in self.followers:
                self.followers[inst.key].append(inst)
            else:
                self.followers[inst.key] = []
                leaders.append(inst)
        self._by_key = {inst.key: inst for inst in leaders}
        leaders = self.feed.plan(leaders)  # samples of one video together, each clip decoded once
        batches = _Batches(leaders, self.bs, self.generation.responses, chunk=self.bs * self.slots)
        dpool = None
        if self.feed.workers:  # batches wait on their clips here; the feed's pool decodes them
            dpool = ThreadPoolExecutor(self.ahead + SHARED_AHEAD, thread_name_prefix="batch")
        gpool = ThreadPoolExecutor(self.slots, thread_name_prefix="generate") if self.slots > 1 else None
        pending: deque[Future] = deque()
        window: deque[set[str]] = deque()  # the clips of each pending batch

        def top_up() -> None:
            while self.stop is None and self._room(window):
                batch = batches.next()
                if batch is None:
                    return
                window.append(self.feed.keys(batch))
                if dpool is None:
                    done: Future = Future()
                    done.set_result(batch)  # decoded when taken, in this thread
                    pending.append(done)
                else:
                    pending.append(dpool.submit(self._decode_batch, batch))

        running = 0
        try:
            while True:
                top_up()
                while pending and running < self.slots and self.stop is None:
                    window.popleft()
                    running += self._send(pending.popleft(), dpool is None, gpool, top_up)
                if running == 0:
                    if self.stop is not None or batches.done:
                        break
                    time.sleep(_POLL_S)  # the rest is being answered by another run: wait for it
                    continue
                item = self._results.get()
                if item is _DONE:
                    running -= 1
                else:
                    self._handle(item)
        finally:
            self._keep_arrived()  # an interrupt or a stop: no answer that came back is lost
            self.feed.stop()  # decodes not started are dropped (none are left when the run went through)
            for p in (dpool, gpool):
                if p is not None:
                    p.shutdown(wait=self.stop is not None or running == 0, cancel_futures=True)
            if self.generation.responses is not None:
                self.generation.responses.release()
        if self.stop is not None:
            raise self.stop

    def _send(
        self, decoding: Future, inline: bool, gpool: Optional[ThreadPoolExecutor], top_up: Callable[[], None]
    ) -> int:
        """Hand the next decoded batch to the model (the number of calls this started on the pool). Its
        frames are referenced only until the call returns, so memory follows the batches in flight."""
        ready = decoding.result()
        if inline:
            ready = self._decode_batch(ready)
        top_up()
        ready = self._settle(ready)
        if not ready:
            return 0
        if gpool is None:
            self._call(ready, self._handle)  # inline: answers handled as they arrive
            return 0
        gpool.submit(self._call, ready, self._arrive)
        return 1

    def _arrive(self, item: Any) -> None:
        """A generate thread's result: to the loop, or (the loop ended) committed to the cache at once."""
        with self._arrival:
            if not self._closed:
                self._results.put(item)
                return
        self._keep([item])

    def _keep_arrived(self) -> None:
        """The loop is ending: commit every answer waiting in the queue (later ones go through `_arrive`)."""
        with self._arrival:
            self._closed = True
        waiting = []
        while True:
            try:
                waiting.append(self._results.get_nowait())
            except queue.Empty:
                break
        self._keep(waiting)

    def _keep(self, items: list[Any]) -> None:
        answers = [
            self._cache_entry(inst, result)
            for inst, result in (i for i in items if i is not _DONE)
            if inst is not None and isinstance(result, Response)
        ]
        if answers and self.generation.responses is not None:
            self.generation.responses.put_many(answers)

    def _cache_entry(self, inst: Instance, response: Response) -> tuple[str, dict, str, str]:
        value = {"response": response.to_json(), "media": inst.media_log}
        return inst.key, value, self.generation.model.name, inst.task.name

    def _room(self, window: deque[set[str]]) -> bool:
        """Whether one more batch may be decoded ahead: the usual window, or more while the waiting batches
        need fewer distinct clips than can decode at once (so no decoder idles while batches share clips)."""
        if len(window) < self.ahead:
            return True
        if len(window) >= self.ahead + SHARED_AHEAD:
            return False
        return len(set().union(*window)) < self.feed.concurrency()

    # -- decoding (worker threads) -----------------------------------------------------------------
    def _decode_batch(
        self, batch: list[Instance]
    ) -> tuple[dict[str, dict], list[tuple[Instance, Optional[Request]]]]:
        """Cache hits found now (another run finished them) and (instance, decoded request) pairs for the
        rest; a request is None when decoding failed (the instance's error says why)."""
        hits = self._reread(batch)
        todo = [inst for inst in batch if inst.key not in hits]
        for inst in batch:
            if inst.key in hits:
                self.feed.finish(inst)  # its clips are not needed for it any more
        for inst in todo:
            self.feed.claim(inst)  # the batch's clips start decoding at once, on the feed's pool
        return hits, [(inst, self.generation.decode(inst, self.feed)) for inst in todo]

    def _reread(self, batch: list[Instance]) -> dict[str, dict]:
        cache = self.generation.responses
        return {} if cache is None or not batch else cache.get_many([inst.key for inst in batch])

    # -- main thread ------------------------------------------------------------------------------
    def _settle(self, decoded: tuple[dict[str, dict], list]) -> list[tuple[Instance, Request]]:
        """Apply the cache hits (found at decode time or read again now) and the decode errors of a
        batch; what is left to generate."""
        hits, pairs = decoded
        hits = {**hits, **self._reread([inst for inst, req in pairs if req is not None])}
        ready, done = [], []
        for inst, req in pairs:
            (ready if req is not None and inst.key not in hits else done).append((inst, req))
        for key, hit in hits.items():
            inst = self._by_key[key]
            inst.response = Response.from_json(hit["response"])
            inst.media_log = hit.get("media", [])
            self.generation.stats["cache_hits"] += 1
            done.append((inst, None))
        for inst, _ in done:
            self._finish(inst)
        return ready

    def _call(self, ready: list[tuple[Instance, Request]], sink: Callable[[Any], None]) -> None:
        """One model call; every result (or failure) goes to `sink` as (instance, result)."""
        reported: set[int] = set()
        try:
            for index, result in self.generation.model.generate_iter([req for _, req in ready]):
                if index in reported or not 0 <= index < len(ready):
                    continue
                reported.add(index)
                sink((ready[index][0], result))
        except HarnessError as exc:  # the harness's own failure stops the run
            sink((None, exc))
        except Exception as exc:  # a generate_iter that broke off: the requests it did not answer failed
            for index, (inst, _) in enumerate(ready):
                if index not in reported:
                    sink((inst, exc))
        finally:
            if sink != self._handle:
                sink(_DONE)

    def _handle(self, item: tuple[Optional[Instance], Result]) -> None:
        """One answer (or failure) arrived: commit it, share it with identical requests, check strict."""
        inst, result = item
        if inst is None:
            self.stop = self.stop or result
            return
        if isinstance(result, Response):
            inst.response = result
            self.generation.stats["generated"] += 1
            if self.generation.responses is not None:
                with protected():  # a signal now is raised after the commit, not half-way through it
                    self.generation.responses.put_many([self._cache_entry(inst, result)])
        else:
            if self.generation.strict and self.stop is None:
                self.stop = StrictModeError(
                    f"generation failed for task '{inst.task.name}' doc '{inst.doc['doc_id']}': {result}"
                )
            kind = "timeout" if isinstance(result, GenerationTimeout) else "generation"
            inst.error = sample_error(kind, result)
            if self.generation.responses is not None:
                self.generation.responses.release([inst.key])  # another run sharing the cache may try it
        self._finish(inst)

    def _finish(self, inst: Instance) -> None:
        """The instance is done: identical requests get the same outcome; strict checks the record."""
        followers = self.followers.pop(inst.key, [])
        for other in followers:
            other.response = inst.response
            other.error = dict(inst.error) if inst.error else None
            other.media_log = list(inst.media_log)
        for one in [inst, *followers]:
            self._strict_check(one)
        self.bar.update(1 + len(followers))

    def _strict_check(self, inst: Instance) -> None:
        if not self.generation.strict or self.stop is not None:
            return
        try:
            self.generation.check(inst)  # an error, or an answer the task cannot parse, raises
        except StrictModeError as exc:
            self.stop = exc


class _Batches:
    """Batches of leaders in order, claimed in the response cache so that runs sharing it split the work:
    requests another live run is generating are put aside and taken up last, as cache hits once that run
    has answered them (or generated here if it failed or died)."""

    def __init__(
        self, leaders: list[Instance], bs: int, cache: Optional[ResponseCache], chunk: int = 1
    ) -> None:
        self.queue = deque(leaders)
        self.claimed: deque[Instance] = deque()  # claimed by this run, not yet handed out
        self.deferred: list[Instance] = []
        self.bs, self.cache = bs, cache
        self.chunk = max(bs, chunk)  # keys claimed per transaction
        self._checked = 0.0

    @property
    def done(self) -> bool:
        return not self.queue and not self.claimed and not self.deferred

    def _held(self, batch: list[Instance]) -> set[str]:
        return self.cache.claim([inst.key for inst in batch]) if self.cache is not None else set()

    def next(self) -> Optional[list[Instance]]:
        """The next batch to decode and generate, or None when there is none right now."""
        while not self.claimed and self.queue:
            chunk = [self.queue.popleft() for _ in range(min(self.chunk, len(self.queue)))]
            held = self._held(chunk)
            self.deferred += [inst for inst in chunk if inst.key in held]
            self.claimed.extend(inst for inst in chunk if inst.key not in held)
        if self.claimed:
            return [self.claimed.popleft() for _ in range(min(self.bs, len(self.claimed)))]
        if self.deferred and time.monotonic() - self._checked >= _POLL_S:
            self._checked = time.monotonic()
            held = self._held(self.deferred)
            self.claimed.extend(inst for inst in self.deferred if inst.key not in held)
            self.deferred = [inst for inst in self.deferred if inst.key in held]
            if self.claimed:
                return self.next()
        return None
