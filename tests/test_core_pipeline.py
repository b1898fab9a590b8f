"""The generation pipeline's speed mechanisms, asserted by behaviour (never by time): requests in flight
at --batch_size 1 for a served model, and decoding ahead of a model that works."""

from __future__ import annotations

import threading
import time

from test_models_openai import ScriptedServer

from harness.api import Capabilities, Model, Response
from harness.config.run import RunConfig
from harness.engine.evaluator import Evaluator
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry
from harness.results.writer import read_samples


def _served(tmp_path, root, server, concurrency, cache):
    cfg = RunConfig(
        tasks=["colors_qa"],
        model="openai",
        model_args={"model": "tiny", "base_url": server.url, "concurrency": concurrency},
        data=root,
        batch_size=1,
        cache_dir=tmp_path / cache,
        output_path=tmp_path / f"out_{cache}",
        log_samples=True,
        progress=False,
    )
    return run(cfg, load_plugins())


def test_a_served_model_keeps_concurrency_requests_in_flight_at_batch_size_1(
    tmp_path, colors_root, with_plugin
):
    server = ScriptedServer(delay=0.15)
    try:
        many = _served(tmp_path, colors_root, server, 4, "c4")
        in_flight, sent = server.max_in_flight, len(server.bodies)
    finally:
        server.close()
    assert 3 <= in_flight <= 4, f"{in_flight} requests in flight with concurrency=4"
    server = ScriptedServer(delay=0.01)
    try:
        one = _served(tmp_path, colors_root, server, 1, "c1")
        assert len(server.bodies) == sent
    finally:
        server.close()
    # records in dataset order, identical answers and cache keys whatever the concurrency
    assert read_samples(many.samples_paths["colors_qa"]) == read_samples(one.samples_paths["colors_qa"])
    assert many.results["task_results"] == one.results["task_results"]


class SleepyModel(Model):
    """Sleeps per call (the GIL released, like a GPU working) and notes how many requests had been
    decoded when each call ended."""

    name = "sleepy"
    capabilities = Capabilities(video=True, multi_video=True, images=True)
    decoded_at_end: list[int] = []

    def generate(self, requests):
        time.sleep(0.15)
        SleepyModel.decoded_at_end.append(_decoded[0])
        return [Response(text="red") for _ in requests]


_decoded = [0]
_lock = threading.Lock()


def test_frames_of_the_next_batches_are_decoded_while_the_model_works(
    tmp_path, colors_root, with_plugin, monkeypatch
):
    original = Evaluator.decode

    def counting_decode(self, inst, *args):
        out = original(self, inst, *args)
        with _lock:
            _decoded[0] += 1
        return out

    monkeypatch.setattr(Evaluator, "decode", counting_decode)
    monkeypatch.setenv("HARNESS_DECODE_WORKERS", "2")
    _decoded[0], SleepyModel.decoded_at_end = 0, []
    state = load_plugins()
    state.registry.add(Entry("model", "sleepy", SleepyModel, plugin="test"))
    cfg = RunConfig(
        tasks=["colors_qa"], model="sleepy", data=colors_root, batch_size=2, no_cache=True, progress=False
    )
    res = run(cfg, state).results["task_results"]["colors_qa"]
    assert res["n_scored"] == 24
    ends = SleepyModel.decoded_at_end  # one call per batch of 2 distinct requests (equal videos share one)
    assert len(ends) >= 5 and ends[0] > 2, f"decoding waited for the model: {ends}"
    ahead = 4  # 2 x one call in flight + 2 prefetched batches: memory stays bounded
    assert all(n <= (k + 1 + ahead) * 2 for k, n in enumerate(ends)), f"decoded too far ahead: {ends}"
