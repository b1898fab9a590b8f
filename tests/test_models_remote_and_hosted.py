"""The papers' models without a transformers-native class: InternVideo2.5 through its remote code (a local
checkpoint with its own modelling files, loaded with trust_remote_code) and the hosted Gemini / GPT presets
over the `openai` adapter."""

from __future__ import annotations

import json
import os
import textwrap

import numpy as np
import pytest

from harness.contract.messages import Message, Request, TextPart, VideoPart
from harness.data.media import VideoRef

os.environ["HF_HUB_OFFLINE"] = "1"

_CONFIG_PY = """
from transformers import PretrainedConfig


class EchoChatConfig(PretrainedConfig):
    model_type = "echo_chat"
"""

_MODEL_PY = '''
import torch
from transformers import PreTrainedModel

from .configuration_echo import EchoChatConfig


class EchoChat(PreTrainedModel):
    """Stands in for InternVideo2.5's remote code: same `chat` signature, answers with what it was given."""

    config_class = EchoChatConfig

    def __init__(self, config):
        super().__init__(config)
        self.scale = torch.nn.Linear(1, 1)
        self.post_init()

    def chat(self, tokenizer, pixel_values, question, generation_config, num_patches_list=None,
             history=None, return_history=False):
        shape = "x".join(str(d) for d in pixel_values.shape)
        return f"{shape}|{sum(num_patches_list)}|{generation_config['max_new_tokens']}|{question}"
'''


@pytest.fixture(scope="module")
def remote_checkpoint(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import torch
    from safetensors.torch import save_file
    from tiny_mirrors import build_tokenizer

    root = tmp_path_factory.mktemp("remote")
    (root / "configuration_echo.py").write_text(textwrap.dedent(_CONFIG_PY))
    (root / "modeling_echo.py").write_text(textwrap.dedent(_MODEL_PY))
    config = {
        "model_type": "echo_chat",
        "architectures": ["EchoChat"],
        "auto_map": {
            "AutoConfig": "configuration_echo.EchoChatConfig",
            "AutoModel": "modeling_echo.EchoChat",
        },
    }
    (root / "config.json").write_text(json.dumps(config))
    save_file(
        {"scale.weight": torch.zeros(1, 1), "scale.bias": torch.zeros(1)}, str(root / "model.safetensors")
    )
    build_tokenizer(
        {"<|endoftext|>": 400, "<|im_end|>": 401}, eos="<|im_end|>", pad="<|endoftext|>"
    ).save_pretrained(root)
    return root


def _clip(n, label):
    frames = np.full((n, 24, 32, 3), 100, dtype=np.uint8)
    return VideoPart(VideoRef(path="v.mp4"), frames, list(range(n)), [i / 4 for i in range(n)], label)


def test_internvideo_runs_its_remote_code_as_the_demo_does(remote_checkpoint):
    from harness_models.hf.internvideo import InternVideo25

    model = InternVideo25(
        pretrained=str(remote_checkpoint), trust_remote_code="true", dtype="float32", device="cpu"
    )
    assert model.capabilities.max_frames == 160  # the whole CycliST video, as the CycliST paper gave it
    request = Request(
        messages=[
            Message("user", [_clip(2, "Clip A"), _clip(3, "Clip B"), TextPart("Which clip comes first?")])
        ],
        gen_kwargs={"max_new_tokens": 7},
        doc_id="d0",
        task="unit",
    )
    (response,) = model.generate([request])
    shape, patches, max_new, question = response.text.split("|", 3)
    assert shape == "5x3x448x448" and patches == "5" and max_new == "7"  # one 448 px tile per frame
    assert question == (
        "Clip A:Frame1: <image>\nFrame2: <image>\nClip B:Frame1: <image>\nFrame2: <image>\nFrame3: <image>\n"
        "Which clip comes first?"
    )
    assert model.identity()["args"]["recipe"] == "internvideo2_5_demo"


def test_internvideo_needs_an_explicit_trust_remote_code(remote_checkpoint):
    from harness_models.hf.internvideo import InternVideo25

    with pytest.raises(ValueError, match="trust_remote_code=true"):
        InternVideo25(pretrained=str(remote_checkpoint))


def test_frame_tiles_normalise_like_the_demo():
    pytest.importorskip("torch")
    from harness_models.hf.internvideo import IMAGENET_MEAN, IMAGENET_STD, frame_tiles

    tiles = frame_tiles(np.full((2, 10, 20, 3), 255, dtype=np.uint8))
    assert tuple(tiles.shape) == (2, 3, 448, 448)
    want = [(1.0 - m) / s for m, s in zip(IMAGENET_MEAN, IMAGENET_STD, strict=True)]
    assert [round(float(tiles[0, c].mean()), 4) for c in range(3)] == [round(w, 4) for w in want]


@pytest.mark.parametrize(
    ("preset", "model_name", "frames", "key_env", "url"),
    [
        ("gemini_2_5_flash", "gemini-2.5-flash", 160, "GEMINI_API_KEY", "generativelanguage.googleapis.com"),
        ("gemini_2_0_flash", "gemini-2.0-flash", 160, "GEMINI_API_KEY", "generativelanguage.googleapis.com"),
        ("gemini_2_0_flash_lite", "gemini-2.0-flash-lite", None, "GEMINI_API_KEY", "generativelanguage"),
        ("gpt_o4_mini", "o4-mini", None, "OPENAI_API_KEY", "api.openai.com"),
        ("gpt_5_4", "gpt-5.4", None, "OPENAI_API_KEY", "api.openai.com"),
    ],
)
def test_hosted_presets_carry_the_papers_model_and_frame_budget(
    monkeypatch, preset, model_name, frames, key_env, url
):
    from harness_models.openai_api.presets import HOSTED

    monkeypatch.setenv(key_env, "test-key")
    model = HOSTED[preset]()
    assert model.identity()["args"]["model"] == model_name
    assert model.capabilities.max_frames == frames
    assert url in model.base_url
    assert HOSTED[preset](max_frames="8").capabilities.max_frames == 8  # args still override
    monkeypatch.delenv(key_env)
    with pytest.raises(ValueError, match=key_env):
        HOSTED[preset]()


def test_plugins_register_the_new_presets_lazily():
    from harness_models.hf import plugin as hf_plugin
    from harness_models.openai_api import plugin as openai_plugin

    names: dict[str, str] = {}
    hf_plugin.register_models(lambda n, f, description="": names.__setitem__(n, f))
    openai_plugin.register_models(lambda n, f, description="": names.__setitem__(n, f))
    assert names["internvideo2_5_8b"] == "harness_models.hf.internvideo:InternVideo25"
    assert names["qwen3_vl_8b"] == "harness_models.hf.presets:qwen3_vl_8b"
    assert names["gemini_2_5_flash"] == "harness_models.openai_api.presets:gemini_2_5_flash"


def test_internvideo_through_the_evaluator_on_a_built_cyclist_set(remote_checkpoint, tmp_path):
    from harness.config.run import RunConfig
    from harness.engine.runner import run
    from harness.plugins.loading import load_plugins
    from harness.results.writer import read_samples
    from harness_builders.cyclist.commands import CyclistBuilder

    (demo,) = CyclistBuilder().demo(tmp_path / "cyclist")
    cfg = RunConfig(
        tasks=["cyclist_l1"],
        model="internvideo2_5_8b",
        model_args={
            "pretrained": str(remote_checkpoint),
            "trust_remote_code": "true",
            "dtype": "float32",
            "device": "cpu",
        },
        data=demo.data_dir,
        limit=1,
        gen_kwargs={"max_new_tokens": 3},
        output_path=tmp_path / "out",
        log_samples=True,
        no_cache=True,
        progress=False,
    )
    out = run(cfg, load_plugins())
    (rec,) = read_samples(out.samples_paths["cyclist_l1"])
    assert rec["error"] is None
    frames = len(rec["media"][0]["indices"])
    shape, patches, max_new, question = rec["raw"].split("|", 3)
    assert (shape, patches, max_new) == (f"{frames}x3x448x448", str(frames), "3")
    assert question.startswith("".join(f"Frame{i + 1}: <image>\n" for i in range(frames)))
    assert out.results["model"]["identity"]["args"]["recipe"] == "internvideo2_5_demo"
