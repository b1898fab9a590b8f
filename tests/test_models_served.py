"""The `openai` adapter against transformers' own OpenAI-compatible server (`transformers serve`) on 127.0.0.1,
serving a tiny random Qwen2-VL checkpoint, compared answer for answer with the in-process `hf` adapter on the
same checkpoint.

What it shows (docs/models.md, "Video to servers"): sending each clip as a lossless video of exactly the
sampled frames reproduces every in-process answer; frames as images, or a lossy clip, change most of them
(random weights make every pixel count). And a server that ignores `n` is detected.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import free_port
from harness.contract.messages import Message, Request, TextPart, VideoPart
from harness.data.media import VideoRef

os.environ["HF_HUB_OFFLINE"] = "1"
pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("fastapi", reason="transformers serve needs transformers[serving] (fastapi, uvicorn)")
pytest.importorskip("openai")

import tiny_mirrors as tiny  # noqa: E402

from harness_models.hf import presets  # noqa: E402
from harness_models.openai_api.adapter import OpenAIModel  # noqa: E402

pytestmark = pytest.mark.hf

LAUNCHER = Path(__file__).parent / "servers" / "transformers_serve_vlm.py"


def _torchcodec_usable() -> bool:
    from transformers.utils.import_utils import is_torchcodec_usable

    return is_torchcodec_usable(decode="video")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(checkpoint folder, base_url) of a running `transformers serve` on 127.0.0.1."""
    if not _torchcodec_usable():
        pytest.skip("transformers serve decodes video with torchcodec, which needs FFmpeg's shared libraries")
    folder = tiny.build_qwen2_vl(tmp_path_factory.mktemp("served") / "qwen2_vl")
    port = free_port()
    log = open(tmp_path_factory.mktemp("serve_log") / "serve.log", "w")  # noqa: SIM115 - closed below
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, str(LAUNCHER), str(folder), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        import urllib.error
        import urllib.request

        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited: {Path(log.name).read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/v1/models", timeout=1.0) as reply:
                    if reply.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("transformers serve did not come up within 120 s")
            time.sleep(0.5)
        yield folder, f"{url}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _clip(seed: int, frames: int = 8, size: int = 56, fps: float = 8.0) -> VideoPart:
    video = np.random.default_rng(seed).integers(0, 255, (frames, size, size, 3), dtype=np.uint8)
    return VideoPart(
        ref=VideoRef(path=f"clip{seed}.mp4"),
        frames=video,
        indices=list(range(0, 2 * frames, 2)),
        timestamps=[t / fps for t in range(frames)],
    )


QUESTIONS = ["What color is the cube?", "How many objects move?", "Is the sphere rubber?", "Describe it."]


def _requests(n: int = 8) -> list[Request]:
    return [
        Request(
            messages=[Message("user", [_clip(i), TextPart(QUESTIONS[i % len(QUESTIONS)])])],
            gen_kwargs={"max_new_tokens": 8},
            doc_id=f"d{i}",
            task="served",
        )
        for i in range(n)
    ]


def _served(folder: Path, url: str, **args) -> OpenAIModel:
    return OpenAIModel(model=str(folder), base_url=url, concurrency=2, **args)


def test_lossless_video_reproduces_the_in_process_answers(served):
    folder, url = served
    requests = _requests()
    local = presets.PRESETS["qwen2_vl_7b"](pretrained=str(folder), dtype="float32", device_map="cpu")
    expected = [r.text for r in local.generate(requests)]
    local.close()
    video = _served(folder, url, video_mode="video", video_transport="path", send_num_frames="true")
    got = [r.text for r in video.generate(requests)]
    video.close()
    assert got == expected
    images = [r.text for r in _served(folder, url).generate(requests)]
    # frames as separate images are another input to the model: most answers change
    assert sum(a == b for a, b in zip(images, expected, strict=True)) < len(expected)


def test_a_server_that_ignores_n_is_topped_up_to_n_samples(served):
    folder, url = served
    model = _served(folder, url)
    [response] = model.generate(
        [Request(messages=[Message("user", [TextPart("hi")])], gen_kwargs={"max_new_tokens": 4, "n": 3,
                                                                             "temperature": 1.0})]
    )
    assert len(response.structured["samples"]) == 3
    assert response.usage["n_fallback"] is True
