"""An interrupt keeps every answer that arrived and exits with the documented code, however many signals
come: SIGINT 130, SIGTERM 143, SIGHUP 129 (docs/cli.md), sent to a real run of a served model on 127.0.0.1
at concurrency 4 with requests still in flight."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from servers.holding import HoldingServer
from test_core_resume import _cached

from conftest import harness_env
from harness.cache.responses import ResponseCache
from harness.contract.messages import Response
from harness.engine.frame_feed import FrameFeed
from harness.engine.generation import Generation, GenerationPipeline


def _start(tmp_path, colors_root, plugin_site, server) -> subprocess.Popen:
    args = [
        "--tasks", "colors_qa", "--model", "openai",
        "--model_args", f"model=tiny,base_url={server.url},concurrency=4,max_retries=0,timeout=120",
        "--data", str(colors_root), "--output_path", str(tmp_path / "out"),
        "--cache_dir", str(tmp_path / "cache"), "--no_progress",
    ]  # fmt: skip
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *args],
        env=harness_env(plugin_site),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize(
    "signals, code",
    [
        ([signal.SIGINT], 130),
        ([signal.SIGTERM], 143),
        ([signal.SIGHUP], 129),
        ([signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGINT], 130),
    ],
    ids=["sigint", "sigterm", "sighup", "many"],
)
def test_an_interrupt_keeps_every_answer_that_arrived_and_exits_with_its_code(
    signals, code, tmp_path, colors_root, plugin_site
):
    server = HoldingServer(fast=6)
    proc = _start(tmp_path, colors_root, plugin_site, server)
    try:
        deadline = time.monotonic() + 60
        while (
            (server.answered < 6 or server.held < 4) and time.monotonic() < deadline and proc.poll() is None
        ):
            time.sleep(0.05)
        assert server.answered == 6 and server.held == 4, "6 answers arrived, 4 requests are in flight"
        settle = time.monotonic() + 10  # the answers are read by the run (a loaded machine may take a while)
        while _cached(tmp_path / "cache") < 6 and time.monotonic() < settle:
            time.sleep(0.1)
        start = time.monotonic()
        for sig in signals:
            proc.send_signal(sig)
            time.sleep(0.05)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
        server.close()
    assert proc.returncode == code, err
    assert took < 10, "the run does not wait for the requests in flight"
    assert "Traceback" not in err and "interrupted (" in err, err
    assert _cached(tmp_path / "cache") == 6, "every answer that arrived is in the cache"
    assert not list((tmp_path / "out").rglob("results_*.json")), "no results file written half-way"


def test_answers_waiting_in_the_pipeline_or_arriving_after_it_ends_are_committed(tmp_path):
    """The part a signal cannot time: answers queued but not yet handled when the loop ends, and answers
    that come back from threads afterwards, all reach the response cache."""
    cache = ResponseCache(tmp_path / "responses.sqlite", shard=None)
    model = SimpleNamespace(name="m", max_in_flight=4)
    gen = Generation(model, cache, lambda i, f: None, lambda i: None, {"generated": 0, "cache_hits": 0})
    pipeline = GenerationPipeline(gen, None, FrameFeed(None, 0, 0))

    def inst(k: int):
        return SimpleNamespace(key=f"k{k}", media_log=[], task=SimpleNamespace(name="t"))

    for k in range(3):  # arrived while the loop was busy elsewhere
        pipeline._arrive((inst(k), Response(text=f"answer {k}")))
    pipeline._arrive((inst(9), RuntimeError("a failed call is not an answer")))
    pipeline._keep_arrived()  # what the loop's `finally` does when an interrupt ends it
    pipeline._arrive((inst(3), Response(text="answer 3")))  # a thread's answer after the loop ended
    got = cache.get_many([f"k{k}" for k in range(10)])
    assert sorted(got) == ["k0", "k1", "k2", "k3"] and got["k3"]["response"]["text"] == "answer 3"
