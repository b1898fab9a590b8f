"""Speed of the model adapters, measured in the same run against what they wrap.

1. hf adapter vs the model's own `generate` on the same inputs (tiny LLaVA-OneVision, batch of 4, fixed
   number of new tokens): the adapter's whole `generate(requests)` (chat template, processor, generate,
   decode) against `model.generate(**inputs)` alone. Target: the adapter adds <= 10 %.
2. hf adapter vs a hand-written transformers script doing the same work (apply_chat_template + generate +
   batch_decode): the adapter's own overhead, for reference (same 10 % bar).
3. openai adapter throughput against a local server that sleeps a fixed time per request, vs the ideal
   concurrency / latency. Target: within 10 %.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from harness.media import VideoRef
from harness.requests import Message, Request, TextPart, VideoPart


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


def _best_interleaved(fns: list, repeats: int) -> list[float]:
    """Best time of each function, run round-robin so that load changes hit all of them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def bench_hf(fast: bool) -> list[dict]:
    """Adapter vs model.generate alone, and vs a hand-written processor+generate+decode script."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from models.hf import tiny
    from models.hf.presets import LlavaOnevision7B

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    new_tokens, repeats = (4, 1) if fast else (32, 7)
    with tempfile.TemporaryDirectory() as tmp:
        path = tiny.build_llava_onevision(os.path.join(tmp, "ov"))
        model = LlavaOnevision7B(pretrained=str(path), dtype="float32", device_map="cpu")
        requests = _requests(4, new_tokens)
        inputs = model.encode(requests)
        gen = {"max_new_tokens": new_tokens, "min_new_tokens": new_tokens, "do_sample": False}

        def raw_generate():
            with torch.inference_mode():
                model.model.generate(**inputs, **gen)

        def hand_written():
            conversations = [
                [
                    {
                        "role": "user",
                        "content": [
                            {"type": "video", "video": r.videos()[0].frames},
                            {"type": "text", "text": t},
                        ],
                    }
                ]
                for r in requests
                for t in [r.messages[0].content[1].text]
            ]
            batch = model.processor.apply_chat_template(
                conversations,
                add_generation_prompt=True,
                tokenize=True,
                return_dict=True,
                return_tensors="pt",
                processor_kwargs={"padding": True, "padding_side": "left"},
            )
            with torch.inference_mode():
                out = model.model.generate(**batch, **gen)
            model.tokenizer.batch_decode(out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)

        model.generate(requests)  # warm-up
        raw_generate()
        hand_written()
        t_raw, t_hand, t_ours = _best_interleaved(
            [raw_generate, hand_written, lambda: model.generate(requests)], repeats
        )
    target = "adapter adds <= 10 % (ratio >= 0.909)"
    return [
        {
            "figure": f"hf adapter generate vs model.generate alone (tiny LLaVA-OV, batch 4, {new_tokens} new tokens)",
            "ours": t_ours,
            "baseline": t_raw,
            "ratio": t_raw / t_ours,
            "unit": "s",
            "target": target,
        },
        {
            "figure": "hf adapter generate vs hand-written apply_chat_template + generate + decode",
            "ours": t_ours,
            "baseline": t_hand,
            "ratio": t_hand / t_ours,
            "unit": "s",
            "target": target,
        },
    ]


class _SleepyServer:
    """Answers every chat completion after `latency` seconds."""

    def __init__(self, latency: float) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as separate writes

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                time.sleep(latency)
                body = json.dumps(
                    {
                        "choices": [{"message": {"role": "assistant", "content": "A"}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 1},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def bench_openai(fast: bool) -> list[dict]:
    """Requests per second with `concurrency` in flight vs the ideal concurrency / latency."""
    from models.openai_api.adapter import OpenAIModel

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
