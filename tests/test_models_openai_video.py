"""The `openai` adapter's video modes (clips as `video_url` parts) and its check of servers that ignore `n`,
against a scripted server on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import json
import os

import av
import numpy as np
import pytest
from servers.chat import ChatServer

from harness.contract.messages import Message, Request, TextPart, VideoPart
from harness.data.media import VideoRef
from harness_models.openai_api.adapter import OpenAIModel
from harness_models.openai_api.video import encode_clip


class OneChoiceServer(ChatServer):
    """Answers every request with ONE choice whatever `n` says (as transformers serve does), recording bodies."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        super().__init__()

    def reply(self, handler, body):
        self.bodies.append(body)
        message = {"role": "assistant", "content": f"s{len(self.bodies)}"}
        reply = {"choices": [{"index": 0, "message": message}], "usage": {"prompt_tokens": 5, "completion_tokens": 1}}
        self.send(handler, 200, json.dumps(reply).encode())


@pytest.fixture
def server():
    s = OneChoiceServer()
    yield s
    s.close()


def _clip(frames: int = 5, size: int = 30) -> VideoPart:
    video = np.random.default_rng(3).integers(0, 255, (frames, size, size + 2, 3), dtype=np.uint8)
    return VideoPart(
        ref=VideoRef(path="c.mp4"), frames=video, indices=list(range(frames)),
        timestamps=[t * 0.25 for t in range(frames)], label="Clip A",
    )


def _request(**gen) -> Request:
    return Request(messages=[Message("user", [_clip(), TextPart("what?")])], gen_kwargs=gen, doc_id="d0")


def _decode(data: bytes) -> tuple[np.ndarray, float]:
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        frames = np.stack([f.to_ndarray(format="rgb24") for f in container.decode(stream)])
        return frames, float(stream.average_rate)


def test_lossless_clip_decodes_to_the_exact_frames_at_their_rate():
    part = _clip()
    frames, fps = _decode(encode_clip(part.frames, 4.0, "lossless"))
    assert np.array_equal(frames, part.frames)
    assert fps == pytest.approx(4.0)
    lossy, _ = _decode(encode_clip(part.frames, 4.0, "lossy", crf=30))
    assert lossy.shape == part.frames.shape and not np.array_equal(lossy, part.frames)


def test_video_mode_sends_one_video_url_part_after_the_label(server):
    model = OpenAIModel(model="m", base_url=server.url, video_mode="video", send_num_frames="true")
    model.generate([_request()])
    content = server.bodies[-1]["messages"][0]["content"]
    assert [c["type"] for c in content] == ["text", "video_url", "text"]
    url = content[1]["video_url"]["url"]
    assert url.startswith("data:video/mp4;base64,")
    frames, fps = _decode(base64.b64decode(url.split(",", 1)[1]))
    assert np.array_equal(frames, _clip().frames) and fps == pytest.approx(4.0)
    assert server.bodies[-1]["chat_template_kwargs"] == {"num_frames": 5}


def test_path_and_file_url_transports_write_the_clip_once(server, tmp_path):
    model = OpenAIModel(model="m", base_url=server.url, video_mode="video", video_transport="path",
                        video_dir=str(tmp_path))
    model.generate([_request(), _request()])
    paths = {b["messages"][0]["content"][1]["video_url"]["url"] for b in server.bodies}
    assert len(paths) == 1 and len(list(tmp_path.glob("*.mp4"))) == 1
    model = OpenAIModel(model="m", base_url=server.url, video_mode="video", video_transport="file_url",
                        video_dir=str(tmp_path))
    model.generate([_request()])
    assert server.bodies[-1]["messages"][0]["content"][1]["video_url"]["url"].startswith("file:///")


def test_clips_in_a_temp_folder_are_removed_on_close(server):
    model = OpenAIModel(model="m", base_url=server.url, video_mode="video", video_transport="path")
    model.generate([_request()])
    written = server.bodies[-1]["messages"][0]["content"][1]["video_url"]["url"]
    assert os.path.exists(written)
    model.close()
    assert not os.path.exists(written)


def test_frames_mode_is_vllms_jpeg_frame_list(server):
    OpenAIModel(model="m", base_url=server.url, video_mode="frames").generate([_request()])
    url = server.bodies[-1]["messages"][0]["content"][1]["video_url"]["url"]
    assert url.startswith("data:video/jpeg;base64,") and len(url.split(",")) == 1 + 5


def test_the_video_mode_is_part_of_the_identity(server):
    ids = {
        json.dumps(OpenAIModel(model="m", base_url=server.url, **args).identity(), sort_keys=True)
        for args in ({}, {"video_mode": "video"}, {"video_mode": "video", "video_codec": "lossy"},
                     {"video_mode": "frames"})
    }
    assert len(ids) == 4
    with pytest.raises(ValueError, match="video_mode='clip'"):
        OpenAIModel(model="m", base_url=server.url, video_mode="clip")


def test_a_server_that_ignores_n_is_detected_and_topped_up(server):
    [response] = OpenAIModel(model="m", base_url=server.url).generate([_request(n=3, temperature=0.7)])
    assert response.structured["samples"] == ["s1", "s2", "s3"]
    assert response.usage["n_fallback"] is True and response.usage["completion_tokens"] == 3
    assert server.bodies[0]["n"] == 3 and "n" not in server.bodies[1]


def test_the_client_is_the_maintained_openai_package(server):
    import openai

    model = OpenAIModel(model="m", base_url=server.url)
    assert isinstance(model.client._client, openai.OpenAI)
    assert model.client._client.max_retries == 0  # the harness's retry policy decides, not two stacked
