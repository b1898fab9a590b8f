"""Speed of the model adapters, measured in the same run against what they wrap.

1. hf adapter overhead (tiny LLaVA-OneVision, batch of 4, fixed number of new tokens). Each repeat runs the
   adapter's real `generate(requests)` once, with the model's own `generate` wrapped by a timer, so the two
   parts are measured on the same inputs in the same call: the model's `generate`, and the adapter's own
   work (conversation building, chat template, processor, moving tensors, decoding, stop strings) = the
   whole call minus the wrapped `generate`. Times are CPU time of this process (`time.process_time`) with
   torch on one thread, so other jobs on a shared machine do not count, and each part keeps its minimum
   over the repeats. Target: (generate + adapter) / generate <= 1.10.
2. openai adapter throughput against a local server that sleeps a fixed time per request, vs the ideal
   concurrency / latency. Target: within 10 %.
"""

from __future__ import annotations

import json
import os
import tempfile
import time

import numpy as np

from bench import from_tests
from harness.contract.messages import Message, Request, TextPart, VideoPart
from harness.data.media import VideoRef

OVERHEAD_BAR = 1.10


def _requests(count: int, new_tokens: int, frames: int = 8) -> list[Request]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(count):
        video = rng.integers(0, 255, size=(frames, 32, 32, 3), dtype=np.uint8)
        part = VideoPart(
            ref=VideoRef(path=f"v{i}.mp4"), frames=video, timestamps=[t / 8 for t in range(frames)]
        )
        question = TextPart("What color is the cube? " * (1 + i % 3))
        gen = {"max_new_tokens": new_tokens, "min_new_tokens": new_tokens}
        out.append(Request(messages=[Message("user", [part, question])], gen_kwargs=gen, doc_id=str(i)))
    return out


def split_adapter_time(model, requests: list[Request], repeats: int) -> tuple[float, float]:
    """(min CPU seconds of the model's own generate, min CPU seconds of the adapter's own work) over repeats.

    The model's `generate` is wrapped for the duration, so both parts come from the same calls.
    """
    inner = model.model.generate
    spent: list[float] = []

    def timed_generate(*args, **kwargs):
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent.append(time.process_time() - start)

    best_generate = best_adapter = float("inf")
    model.model.generate = timed_generate
    try:
        for _ in range(repeats):
            spent.clear()
            start = time.process_time()
            model.generate(requests)
            total = time.process_time() - start
            generate = sum(spent)
            best_generate = min(best_generate, generate)
            best_adapter = min(best_adapter, total - generate)
    finally:
        del model.model.generate  # back to the class's method
    return best_generate, best_adapter


def bench_hf(fast: bool) -> list[dict]:
    """The adapter's own work against the model's own generate, on the same inputs in the same calls."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from harness_models.hf.presets import PRESETS

    tiny = from_tests("tiny_mirrors")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # CPU time == compute time of this call; no intra-op threads to add up
    new_tokens, repeats = (32, 5) if fast else (32, 21)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = tiny.build_llava_onevision(os.path.join(tmp, "ov"))
            model = PRESETS["llava_onevision_7b"](pretrained=str(path), dtype="float32", device_map="cpu")
            requests = _requests(4, new_tokens)
            model.generate(requests)  # warm-up
            generate, adapter = split_adapter_time(model, requests, repeats)
    finally:
        torch.set_num_threads(threads)
    factor = (generate + adapter) / generate
    return [
        {
            "figure": (
                f"hf adapter overhead: (generate + adapter work) / generate = {factor:.3f} "
                f"(tiny LLaVA-OV, batch 4, {new_tokens} new tokens, CPU time, min of {repeats}; "
                f"adapter {adapter * 1000:.1f} ms, generate {generate * 1000:.1f} ms)"
            ),
            "ours": generate + adapter,
            "baseline": generate,
            "ratio": generate / (generate + adapter),
            "overhead_factor": factor,
            "unit": "s (CPU)",
            "target": f"adapter adds <= 10 %: overhead_factor <= {OVERHEAD_BAR} (ratio >= {1 / OVERHEAD_BAR:.3f})",
        }
    ]


class _SleepyServer(from_tests("servers.chat").ChatServer):
    """Answers every chat completion after `latency` seconds."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        super().__init__()

    def reply(self, handler, body):
        time.sleep(self.latency)
        usage = {"prompt_tokens": 10, "completion_tokens": 1}
        reply = {"choices": [{"message": {"role": "assistant", "content": "A"}}], "usage": usage}
        self.send(handler, 200, json.dumps(reply).encode())


def bench_openai(fast: bool) -> list[dict]:
    """Requests per second with `concurrency` in flight vs the ideal concurrency / latency."""
    from harness_models.openai_api.adapter import OpenAIModel

    latency, concurrency, count = (0.05, 8, 32) if fast else (0.2, 16, 256)
    server = _SleepyServer(latency)
    try:
        model = OpenAIModel(model="bench", base_url=server.url, concurrency=concurrency)
        requests = [
            Request(messages=[Message("user", [TextPart(f"q{i}")])], doc_id=str(i)) for i in range(count)
        ]
        model.generate(requests[:concurrency])  # open the keep-alive connections
        start = time.perf_counter()
        model.generate(requests)
        elapsed = time.perf_counter() - start
    finally:
        server.close()
    ours = count / elapsed
    ideal = concurrency / latency
    return [
        {
            "figure": f"openai adapter throughput, concurrency {concurrency}, server latency {latency}s, {count} requests",
            "ours": ours,
            "baseline": ideal,
            "ratio": ours / ideal,
            "unit": "requests/s",
            "target": "within 10 % of concurrency / latency (ratio >= 0.9)",
        }
    ]


def run(fast: bool = False) -> list[dict]:
    """All adapter figures (fast=True: a few seconds)."""
    return bench_hf(fast) + bench_openai(fast)


if __name__ == "__main__":
    for row in run():
        print(json.dumps(row))
