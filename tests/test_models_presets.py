"""Every preset's authors' recipe on its mirrored tiny checkpoint, through the evaluator, on built data.

What each test asserts is what a user relies on: the tiny checkpoints keep the published facts (token ids,
patch sizes, pooling, context, chat template), the prompt the model is fed holds the recipe's text exactly
as the authors' code formats it, the visual tokens per request follow the family's rule at the frames the
harness decoded, the frame budget is lowered up front when it would overflow the context, and a prompt that
still does not fit is refused, never cut.
"""

from __future__ import annotations

import math
import os
import re
from types import SimpleNamespace

import numpy as np
import pytest

from harness.contract.messages import Message, Request, TextPart, VideoPart, label_text
from harness.data.media import VideoRef

os.environ["HF_HUB_OFFLINE"] = "1"
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytestmark = pytest.mark.hf

import published_facts as published  # noqa: E402
from tiny_checkpoints import PRESET_FAMILY, Checkpoints  # noqa: E402

from harness_models.hf import budget, presets, recipes  # noqa: E402
from harness_models.hf.adapter import HFModel  # noqa: E402

RECIPE = {
    "llava_video_7b": "llava_video_time",
    "llava_onevision_7b": "llava_onevision_card",
    "llava_next_video_7b": "llava_next_video_card",
    "qwen2_vl_7b": "qwen_vl_utils",
    "qwen2_5_vl_7b": "qwen_vl_utils",
    "qwen3_vl_8b": "qwen3_vl",
    "internvl3_8b": "internvl3_card",
}


@pytest.fixture(scope="module")
def checkpoints():
    return Checkpoints()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from harness_builders.cyclist.commands import CyclistBuilder
    from harness_builders.tempcloze.commands import TempClozeBuilder

    root = tmp_path_factory.mktemp("preset_data")
    (cyc,) = CyclistBuilder().demo(root / "cyclist")
    (tc,) = TempClozeBuilder().demo(root / "tempcloze")
    return {"cyclist": cyc.data_dir, "tempcloze": tc.data_dir}


def _model(checkpoints, preset, **args):
    family = PRESET_FAMILY[preset]
    return presets.PRESETS[preset](
        pretrained=str(checkpoints[family]), dtype="float32", device_map="cpu", **args
    )


def _clip(frames=4, fps=8.0, size=32, label=None, step=1):
    video = np.zeros((frames, size, size, 3), dtype=np.uint8)
    for t in range(frames):
        video[t, 8:16, (3 * t) % (size - 8) :][:, :8] = 200
    return VideoPart(
        ref=VideoRef(path="clip.mp4"),
        frames=video,
        indices=[step * t for t in range(frames)],
        timestamps=[step * t / fps for t in range(frames)],
        label=label,
    )


def _request(*parts, question="What moves?"):
    return Request(
        messages=[Message("user", [*parts, TextPart(question)])],
        gen_kwargs={"max_new_tokens": 2},
        doc_id="doc0",
        task="unit",
    )


def _time_instruction(timestamps, count, duration):
    times = ",".join(f"{t:.2f}s" for t in timestamps)
    return (
        f"The video lasts for {duration:.2f} seconds, and {count} frames are uniformly sampled from it. "
        f"These frames are located at {times}.Please answer the following questions related to this video."
    )


def _qwen_tokens(n_frames, height, width, max_video_tokens, factor=28, temporal=2):
    """Visual tokens of one clip as qwen-vl-utils sizes it (its constants, transformers' smart_resize)."""
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import smart_resize

    c = recipes.QWEN_VL_UTILS
    total = int(max_video_tokens * factor * factor * 0.9)
    max_pixels = max(
        min(c["VIDEO_MAX_PIXELS"], total * temporal // n_frames), int(c["VIDEO_MIN_PIXELS"] * 1.05)
    )
    h, w = smart_resize(height, width, factor=factor, min_pixels=c["VIDEO_MIN_PIXELS"], max_pixels=max_pixels)
    return math.ceil(n_frames / temporal) * (h // factor) * (w // factor)


def _expected_visual(preset, model, clips):
    """Visual tokens the family's rule gives for clips of (frames, height, width)."""
    if preset.startswith(("llava_video", "llava_onevision")):
        vision = model.model.config.vision_config
        side = math.ceil((vision.image_size // vision.patch_size) / 2)
        return sum(n * side * side + 1 for n, _, _ in clips)
    if preset.startswith("llava_next_video"):
        vision = model.model.config.vision_config
        return sum(n * ((vision.image_size // vision.patch_size) ** 2 // 4) for n, _, _ in clips)
    if preset.startswith("internvl"):
        return sum(n * model.processor.image_seq_length for n, _, _ in clips)
    if preset.startswith(("qwen2_vl", "qwen2_5_vl")):
        seq = min(recipes.QWEN_VL_UTILS["MODEL_SEQ_LEN"], model.budget.context_length) // len(clips)
        return sum(_qwen_tokens(n, h, w, seq) for n, h, w in clips)
    return None  # qwen3_vl: counted by the processor (no published rule mirrored)


# --------------------------------------------------------------------------- the mirrored checkpoints
@pytest.mark.parametrize("family", ["llava_onevision", "llava_next_video", "qwen2_vl", "qwen2_5_vl"])
def test_tiny_checkpoint_keeps_the_published_facts(checkpoints, family):
    from transformers import AutoConfig, AutoProcessor

    fact = published.FAMILIES[family]
    config = AutoConfig.from_pretrained(checkpoints[family])
    processor = AutoProcessor.from_pretrained(checkpoints[family])
    tokenizer = processor.tokenizer
    for token, token_id in fact["tokens"].items():
        assert tokenizer.convert_tokens_to_ids(token) == token_id, token
    assert config.text_config.vocab_size == fact["vocab_size"]
    assert budget.context_length(config) == fact["context_length"]
    assert processor.chat_template == fact["chat_template"]
    assert tokenizer.eos_token == fact["eos"] and tokenizer.pad_token == fact["pad"]
    vision = config.vision_config
    assert vision.patch_size == fact["vision"]["patch_size"]
    if family.startswith("llava"):
        assert config.vision_feature_select_strategy == fact["vision_feature_select_strategy"]
        assert config.vision_feature_layer == fact["vision_feature_layer"]
        assert (config.image_token_index, config.video_token_index) == (
            fact["tokens"]["<image>"],
            fact["tokens"]["<video>"],
        )
    if family == "llava_next_video":
        assert (config.spatial_pool_stride, config.spatial_pool_mode) == (2, "average")
    if family.startswith("qwen"):
        assert vision.spatial_merge_size == 2 and vision.temporal_patch_size == 2
        assert config.video_token_id == fact["tokens"]["<|video_pad|>"]


def test_published_token_budgets_per_preset():
    """The numbers docs/models.md gives, from the published configs (no weights needed)."""

    def cfg(family, **vision):
        fact = published.FAMILIES[family]
        text = SimpleNamespace(max_position_embeddings=fact["context_length"], rope_scaling=None)
        return SimpleNamespace(
            text_config=text, vision_config=SimpleNamespace(**{**fact["vision"], **vision})
        )

    ov = budget.compute("llava_onevision", cfg("llava_onevision"), None, "llava_onevision_card")
    assert (ov.tokens_per_frame, ov.tokens_per_video, ov.context_length, ov.frames_fit) == (
        196,
        1,
        32768,
        164,
    )
    assert 160 * 196 + 1 <= 32768 - budget.TEXT_RESERVE  # LLaVA-OV's 160 frames fit
    crop = SimpleNamespace(video_processor=SimpleNamespace(crop_size={"height": 336, "width": 336}))
    nv = budget.compute("llava_next_video", cfg("llava_next_video"), crop, "llava_next_video_card")
    assert (nv.tokens_per_frame, nv.context_length, nv.frames_fit) == (144, 4096, 24)  # 32 frames do not fit
    ivl = budget.compute("internvl", cfg("internvl"), SimpleNamespace(image_seq_length=256), "internvl3_card")
    assert (ivl.tokens_per_frame, ivl.frames_fit) == (256, 126)
    qwen = SimpleNamespace(
        video_processor=SimpleNamespace(patch_size=14, merge_size=2, temporal_patch_size=2)
    )
    q2 = budget.compute("qwen2_vl", cfg("qwen2_vl"), qwen, "qwen_vl_utils")
    assert (q2.tokens_per_frame, q2.context_length, q2.frames_fit) == (67.5, 32768, 476)
    q25 = budget.compute("qwen2_5_vl", cfg("qwen2_5_vl"), qwen, "qwen_vl_utils")
    assert q25.frames_fit >= 768


# --------------------------------------------------------------------------- recipes through the evaluator
@pytest.fixture
def fed(monkeypatch):
    """What the model is fed: (doc_id, prompt text, visual tokens, [(frames, height, width) per clip])."""
    seen: list[tuple] = []
    original = HFModel.encode

    def spy(self, requests):
        inputs = original(self, requests)
        rows = zip(
            inputs["input_ids"], inputs["attention_mask"], requests, inputs["visual_tokens"], strict=True
        )
        for row, mask, request, vis in rows:
            clips = [
                (len(p.frames), p.frames.shape[1], p.frames.shape[2])
                for m in request.messages
                for p in m.content
                if isinstance(p, VideoPart)
            ]
            text = self.tokenizer.decode(row[mask == 1])
            seen.append((request.doc_id, text, vis, clips, [p for m in request.messages for p in m.content]))
        return inputs

    monkeypatch.setattr(HFModel, "encode", spy)
    return seen


def _run(data, checkpoints, preset, bench, task, tmp_path, **args):
    from conftest import run_in
    from harness.plugins.loading import load_plugins
    from harness.results.writer import read_samples

    margs = {
        "pretrained": str(checkpoints[PRESET_FAMILY[preset]]),
        "dtype": "float32",
        "device_map": "cpu",
        **args,
    }
    options = {"model_args": margs, "limit": 1, "batch_size": 1, "gen_kwargs": {"max_new_tokens": 2}}
    options |= {"no_cache": True, "progress": False}
    out = run_in(tmp_path, [task], preset, data[bench], load_plugins(), **options, output_path=tmp_path / bench)
    res = out.results["task_results"][task]
    samples = list(read_samples(out.samples_paths[task]))
    assert res["n_errors"] == 0, [s["error"] for s in samples]
    return out.results, samples


@pytest.mark.parametrize("preset", list(PRESET_FAMILY))
def test_preset_recipe_through_the_evaluator(data, checkpoints, preset, tmp_path, fed):
    results, samples = _run(data, checkpoints, preset, "cyclist", "cyclist_l1", tmp_path)
    assert results["model"]["identity"]["args"]["recipe"] == RECIPE[preset]
    (doc_id, text, visual, clips, parts) = fed[-1]
    (rec,) = samples
    assert rec["doc_id"] == doc_id
    (media,) = rec["media"]
    assert clips[0][0] == len(media["indices"])
    question = rec["prompt"].split("<video>")[-1].strip()  # the logged prompt marks the clip as <video>
    assert question and question in text  # the task's question reaches the model unchanged
    instruction = "The video lasts for"
    if preset.startswith("llava_video"):
        part = next(p for p in parts if isinstance(p, VideoPart))
        # CycliST demo videos: 32 frames at 32 fps, so the clip lasts 1.00 s; frame times as logged
        expected = _time_instruction(media["timestamps"], len(media["indices"]), 1.0)
        assert f"<video>\n{expected}\n" in re.sub(r"(<video>)+", "<video>", text)
        assert part.timestamps == pytest.approx(media["timestamps"])
    else:
        assert instruction not in text
    if preset.startswith("qwen"):
        assert text.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n")
    if preset.startswith("llava_next_video"):
        assert text.startswith("USER: <video>") and text.endswith(" ASSISTANT:")
    if preset.startswith("internvl"):
        assert [f"Frame{i + 1}: <img>" in text for i in range(len(media["indices"]) + 1)] == [True] * len(
            media["indices"]
        ) + [False]
    want = _expected_visual(preset, _model(checkpoints, preset), clips)
    if want is not None:
        assert visual == want, (preset, visual, want, clips)
    else:
        assert visual > 0


@pytest.mark.parametrize("preset", ["llava_video_7b", "llava_onevision_7b", "qwen2_vl_7b"])
def test_labelled_clips_stay_with_their_clips_under_the_published_template(
    data, checkpoints, preset, tmp_path, fed
):
    """The published LLaVA templates render all videos before all texts; the harness keeps each label in
    front of its own clip (and LLaVA-Video's time instruction after it)."""
    # 24 frames over the six clips: 4 each, which every clip of the demo reaches (LLaVA processors stack the
    # clips of a request into one tensor, so they need equal counts)
    _, samples = _run(data, checkpoints, preset, "tempcloze", "tempcloze_semantic", tmp_path, max_frames="24")
    (_, text, visual, clips, parts) = fed[-1]
    labels = [p.label for p in parts if isinstance(p, VideoPart)]
    assert len(labels) >= 3 and all(labels)
    video = "<|video_pad|>" if preset.startswith("qwen") else "<video>"
    squeezed = re.sub(f"({re.escape(video)})+", "[V]", text)
    printed = [label_text(label) for label in labels]
    positions = [squeezed.index(p) for p in printed]
    assert positions == sorted(positions)
    for p in printed:
        after = squeezed[squeezed.index(p) + len(p) :].lstrip(" ")
        assert after.startswith("[V]") or after.startswith("<|vision_start|>[V]")
    if preset == "llava_video_7b":
        assert squeezed.count("[V]\nThe video lasts for ") == len(labels)
    want = _expected_visual(preset, _model(checkpoints, preset), clips)
    assert visual == want


# --------------------------------------------------------------------------- switches, budgets, overflow
def test_recipe_none_turns_the_time_instruction_off(checkpoints):
    on = _model(checkpoints, "llava_video_7b")
    off = _model(checkpoints, "llava_video_7b", recipe="none")
    request = _request(_clip(frames=4, fps=8.0))
    text_on = on.tokenizer.decode(on.encode([request])["input_ids"][0])
    text_off = off.tokenizer.decode(off.encode([request])["input_ids"][0])
    assert _time_instruction([0, 0.125, 0.25, 0.375], 4, 0.5) in text_on
    assert "The video lasts" not in text_off
    assert (on.identity()["args"]["recipe"], off.identity()["args"]["recipe"]) == ("llava_video_time", "none")
    assert on.identity() != off.identity(), "the recipe changes answers, so it is part of the cache key"
    with pytest.raises(ValueError, match="recipe='fancy' is not one of authors, off"):
        _model(checkpoints, "llava_video_7b", recipe="fancy")


def test_qwen_vl_utils_timing_uses_frames_over_duration(checkpoints):
    on = _model(checkpoints, "qwen2_5_vl_7b")
    off = _model(checkpoints, "qwen2_5_vl_7b", recipe="none")
    # 8 frames taken every 4th source frame of a 32 fps clip whose last frame is 28: it lasts 29 / 32 s;
    # qwen-vl-utils' sampled rate is nframes / duration, the frames' own spacing (7 gaps of 4/32 s) is 8 fps
    request = _request(_clip(frames=8, fps=32.0, step=4))
    assert float(on.encode([request])["second_per_grid_ts"][0]) == pytest.approx(2 / (8 / (29 / 32)))
    assert float(off.encode([request])["second_per_grid_ts"][0]) == pytest.approx(2 / (7 / (28 / 32)))


def test_budget_is_lowered_up_front_and_recorded(checkpoints, caplog):
    with caplog.at_level("WARNING"):
        qwen = _model(checkpoints, "qwen2_vl_7b")
    # qwen-vl-utils' smallest frame pair (1.05 x 128 x 28 x 28 px: 135 tokens) against Qwen2-VL's 32,768
    assert qwen.capabilities.max_frames == 476
    assert qwen.identity()["args"]["budget"]["lowered_from"] == 768
    assert "lowered to 476" in caplog.text and "32768-token context" in caplog.text
    wide = _model(checkpoints, "llava_next_video_7b", max_frames="5000")
    assert wide.capabilities.max_frames == (4096 - budget.TEXT_RESERVE) // 4
    kept = _model(checkpoints, "llava_onevision_7b")
    assert kept.capabilities.max_frames == 160 and kept.identity()["args"]["budget"]["lowered_from"] is None


def test_a_prompt_longer_than_the_context_is_refused_not_cut(checkpoints):
    model = _model(checkpoints, "llava_next_video_7b")
    too_long = _request(_clip(frames=1030, size=16))  # 1030 x 4 visual tokens > 4096
    with pytest.raises(budget.ContextOverflow, match="doc_id='doc0'.*4096") as err:
        model.generate([too_long])
    assert err.value.reason == "context_overflow"


def test_visual_tokens_are_reported_per_request(checkpoints):
    model = _model(checkpoints, "llava_onevision_7b")
    one, two = _request(_clip(frames=3)), _request(_clip(frames=5, label="A"), _clip(frames=5, label="B"))
    three = _request(_clip(frames=6))
    usage = [r.usage for r in model.generate([one, two, three])]
    side = math.ceil(56 // 14 / 2)  # SigLIP patch 14 at the tiny 56 px: 4 x 4 patches, pooled to 2 x 2
    assert [u["visual_tokens"] for u in usage] == [3 * side**2 + 1, 2 * (5 * side**2 + 1), 6 * side**2 + 1]
    ragged = _request(_clip(frames=5, label="A"), _clip(frames=2, label="B"))
    with pytest.raises(ValueError, match=r"clips hold \[2, 5\] frames"):
        model.generate([ragged])


def test_qwen_video_bounds_leave_the_images_of_a_request_alone(checkpoints):
    """qwen-vl-utils' video pixel bounds go to the video processor only: an image in the same request keeps
    the image processor's own sizing."""
    from harness.contract.messages import ImagePart

    model = _model(checkpoints, "qwen2_vl_7b")
    image = ImagePart(image=np.full((40, 48, 3), 120, dtype=np.uint8))
    image_id = model.processor.image_token_id
    alone = model.encode([_request(image)])["input_ids"]
    mixed = model.encode([_request(image, _clip(frames=4))])["input_ids"]
    assert int((mixed == image_id).sum()) == int((alone == image_id).sum()) > 0
