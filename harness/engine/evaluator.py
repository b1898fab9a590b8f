"""The evaluator: tasks x one model -> per-sample records -> aggregated results, with caches and resume.

One sample's path (harness.engine.sample.Instance): doc -> its one Request (video refs, paths resolved, the
frame budget applied; the effective frame spec and decoder identity computed once per task and clip count) ->
response-cache key (no decoding needed) -> on a miss, frames decoded through the frame cache into a copy of the
request, fitted to the model's capabilities -> model.generate, batched (harness.engine.generation: decoding
ahead, requests in flight, each answer cached on arrival) -> parsed and scored by the task into its
SampleRecord. Per-sample problems become counted errors, never a crash (unless strict). Samples are sharded
across data-parallel ranks and gathered on rank 0.
"""

from __future__ import annotations

import hashlib
import logging
from functools import partial
from pathlib import Path
from typing import Any, Optional

from harness.cache import default_cache_dir
from harness.cache.keys import response_key
from harness.cache.responses import ResponseCache
from harness.config.run import RunConfig
from harness.contract.messages import Request, Response, VideoPart
from harness.contract.model import Model
from harness.data.task import MediaPathError, Task
from harness.engine import distributed
from harness.engine.fitting import adapt_request, per_clip_budget
from harness.engine.frame_feed import (
    FrameFeed,
    decode_bytes,
    decode_workers,
    frame_cache_bytes,
    shared_frames_bytes,
    video_parts,
)
from harness.engine.generation import Generation, GenerationPipeline
from harness.engine.progress import SampleProgress
from harness.engine.sample import Instance, SampleFrames, sample_error
from harness.errors import HarnessError, HookContractError
from harness.frames import FrameCache, MediaError, decoder_identity, load_clip
from harness.frames.content_hash import HashStore, hash_files
from harness.frames.spec import FrameSpec
from harness.scoring.recording import check_arrived

log = logging.getLogger("harness.engine.evaluator")

MEDIA_ERRORS = (MediaError, OSError, MediaPathError)  # every OSError on media is a counted media error


def stable_seed(*parts: Any) -> int:
    """A 63-bit seed from the parts' text: same on every machine, rank and run."""
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:15], 16)


class Evaluator:
    """Runs one model over a list of tasks."""

    def __init__(self, cfg: RunConfig, model: Model, tasks: list[Task], judge: Any = None):
        self.cfg = cfg
        self.model = model
        self.tasks = tasks
        self.judge = judge
        self.rank, self.world = distributed.world()
        cache_dir = Path(cfg.cache_dir) if cfg.cache_dir else default_cache_dir()
        self.responses = None if cfg.no_cache else ResponseCache(cache_dir / "responses.sqlite")
        self.frames = None if cfg.no_cache else FrameCache(cache_dir / "frames", frame_cache_bytes())
        self.hashes = HashStore(None if cfg.no_cache else cache_dir / "hashes")  # this run's content hashes
        self.stats = {"cache_hits": 0, "generated": 0, "clips_loaded": 0, "cache_rejected": 0}
        self._sample_frames: dict[tuple[str, int], SampleFrames] = {}

    # -- building ----------------------------------------------------------------------------------
    def task_spec(self, task: Task) -> FrameSpec:
        """The task's frame spec, or the run's `--frames` override."""
        return self.cfg.frames or task.config.frames

    def sample_frames(self, task: Task, n_videos: int) -> SampleFrames:
        """The effective frame spec of a sample of `task` with `n_videos` clips (the task's spec under the
        model's per-clip budget) and its decoder identity: computed once per task and clip count."""
        known = self._sample_frames.get((task.name, n_videos))
        if known is None:
            spec = self.task_spec(task).capped(per_clip_budget(self.model.capabilities, n_videos))
            known = self._sample_frames[(task.name, n_videos)] = SampleFrames(spec, decoder_identity(spec))
        return known

    def _hints(self, task: Task, doc: dict, target: Any) -> dict:
        return {
            "oracle_answer": task.oracle_answer(doc, target),
            "prior_key": str(doc.get(task.config.prior_key, "")) if task.config.prior_key else "",
            "seed": stable_seed(self.cfg.seed, task.name, doc["doc_id"]),
        }

    def prepare(self, inst: Instance, key: bool = True) -> None:
        """Build the sample's one request (paths resolved and the frame budget applied as the task builds its
        messages) and (with `key`) its cache key; problems become the instance's error."""
        task, doc = inst.task, inst.doc
        step = "target"  # the hook running: an exception in a task's own hook is named by it
        try:
            inst.target = task.target(doc)
            step = "build_request"
            messages = task.build_messages(doc, partial(per_clip_budget, self.model.capabilities))
            step = "oracle_answer"
            hints = self._hints(task, doc, inst.target) if self.model.uses_hints else {}
        except MEDIA_ERRORS as exc:
            inst.error = sample_error("media", exc)
            return
        except HookContractError as exc:  # e.g. an oracle_answer of the wrong type: counted, naming the hook
            inst.error = sample_error("request", exc)
            return
        except HarnessError:
            raise
        except Exception as exc:  # a malformed row or a task hook's bug: counted, not fatal
            named = getattr(task.config.hooks, step, None) is not None
            inst.error = sample_error("request", task.hook_failure(step, exc) if named else exc, type(exc).__name__)
            return
        gen = {**task.generation_kwargs(), **self.cfg.gen_kwargs}
        request = Request(messages, gen, None, task.name, doc["doc_id"], hints)
        inst.frames = self.sample_frames(task, len(request.videos()))
        request.frame_spec = inst.frames.spec
        inst.request = request
        if key:
            self.key(inst)

    def key(self, inst: Instance, identities: Optional[dict[str, str]] = None) -> None:
        """The response-cache key of a prepared instance (each video's content hash: from `identities`,
        what `hash_files` just returned, else through the run's HashStore)."""
        req = inst.request
        try:
            inst.key = response_key(
                self.model.identity(), req.gen_kwargs, req.messages, inst.spec, inst.frames.decoder,
                req.hints or None, identities, self.hashes,
            )  # fmt: skip
        except MEDIA_ERRORS as exc:
            inst.error = sample_error("media", exc)

    def decode(self, inst: Instance, feed: Optional[FrameFeed] = None) -> Optional[Request]:
        """The sample's request with frames filled in and fitted to the model, or None (the error is
        recorded). With `feed`, clips come from the run's shared clips (decoded once for every sample of a
        clip)."""
        inst.media_log = []
        clips = []
        try:
            for n, (part, spec) in enumerate(video_parts(inst)):
                if feed is None:
                    clip = load_clip(part.ref, spec, cache=self.frames, hashes=self.hashes)
                else:
                    clip = feed.load(inst, n, part.ref, spec)
                clips.append(clip)
                inst.media_log.append(self._media_entry(inst, part, clip.indices, clip.timestamps))
                inst.media_log[-1]["fps"] = round(float(clip.fps), 6)  # frame folders: row or default
            return adapt_request(inst.request.with_frames(clips), self.model.capabilities, self.model.name)
        except MEDIA_ERRORS as exc:
            inst.error = sample_error("media", exc)
            return None
        finally:
            if feed is not None:
                feed.finish(inst)

    def _media_entry(self, inst: Instance, part: VideoPart, indices, timestamps) -> dict:
        root = inst.task.data_root
        path = Path(part.ref.path)
        try:
            shown = str(path.relative_to(root.resolve())) if root else str(path)
        except ValueError:
            shown = str(path)
        entry = {
            "path": shown,
            "label": part.label,
            "segments": part.ref.clip_key(),
            "indices": [int(i) for i in indices],
            "timestamps": [round(float(t), 6) for t in timestamps],
        }
        if part.spec is not None:
            entry["frame_spec"] = part.spec.digest()
        return entry

    # -- generation ---------------------------------------------------------------------------------
    def run_instances(self, instances: list[Instance]) -> None:
        """Fill every instance's response (from the cache or the model) or error."""
        from tqdm import tqdm

        for inst in instances:
            self.prepare(inst, key=False)
            self.check_strict(inst)  # --strict stops before the first model call
        videos = [p.ref.path for i in instances if i.error is None for p, _ in video_parts(i)]
        identities = hash_files(videos, self.hashes, progress=self.cfg.progress)  # new ones in parallel, once
        for inst in instances:
            if inst.error is None:
                self.key(inst, identities)
                self.check_strict(inst)  # a video that cannot be keyed: --strict stops here too
        live = [i for i in instances if i.error is None]
        hits = self.responses.get_many([i.key for i in live]) if self.responses is not None else {}
        todo = []
        for inst in live:
            hit = hits.get(inst.key)
            if hit is not None:
                inst.response = Response.from_json(hit["response"])
                inst.media_log = hit.get("media", [])
                self.stats["cache_hits"] += 1
            else:
                todo.append(inst)
        bar = tqdm(
            total=len(todo),
            desc=f"{self.model.name} (rank {self.rank})" if self.world > 1 else self.model.name,
            unit="sample",
            disable=not self.cfg.progress or not todo,
            leave=False,
        )
        bar = SampleProgress(bar, len(todo), self.cfg.on_progress)  # and the run's reporter (a grid cell's)
        feed = FrameFeed(self.frames, decode_workers(), shared_frames_bytes(), decode_bytes(), self.hashes)
        try:
            GenerationPipeline(self._generation(), bar, feed).run(todo)
        finally:
            feed.close()
            bar.close()
            self.hashes.close()  # all keying and decoding is done: the index's log is closed
        self.stats["clips_loaded"] += feed.clips.stats["decoded"]  # decoded, or read from the frame cache
        self.stats["cache_rejected"] = self.responses.rejected if self.responses is not None else 0

    def _generation(self) -> Generation:
        """What the generation pipeline needs of this run: the model, the response cache, decoding, the check
        of --strict and the counters (the pipeline never sees the evaluator itself)."""
        cfg = self.cfg
        return Generation(
            self.model, self.responses, self.decode, self.check_strict, self.stats, cfg.batch_size, cfg.strict
        )

    # -- --strict ----------------------------------------------------------------------------------
    def check_strict(self, inst: Instance) -> None:
        """--strict's check of a finished instance, before the next model call (`recording.check_arrived`)."""
        if self.cfg.strict:
            check_arrived(inst, self.judge)
