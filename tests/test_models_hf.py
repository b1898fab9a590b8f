"""The `hf` adapter and its presets on tiny, randomly initialised models built from configs (offline).

Each family's checkpoint (weights, locally trained tokenizer, processors, chat template) is written to a
temp folder once per session and loaded back with from_pretrained under HF_HUB_OFFLINE=1; each preset's
code path then answers requests holding small decoded clips.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from harness.contract.messages import Message, Request, TextPart, VideoPart
from harness.data.media import VideoRef

os.environ["HF_HUB_OFFLINE"] = "1"
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_checkpoints import PRESET_FAMILY, Checkpoints  # noqa: E402

from harness_models.hf import presets  # noqa: E402

pytestmark = pytest.mark.hf

# (family builder, preset that runs on it): every preset with a tiny mirror
CASES = [(family, preset) for preset, family in PRESET_FAMILY.items()]


@pytest.fixture(scope="session")
def checkpoints():
    return Checkpoints()


_LOADED: dict = {}


def load(checkpoints, family, preset, **args):
    key = (family, preset, tuple(sorted(args.items())))
    if key not in _LOADED:
        _LOADED[key] = presets.PRESETS[preset](
            pretrained=str(checkpoints[family]), dtype="float32", device_map="cpu", **args
        )
    return _LOADED[key]


def clip(seed, frames=4, size=32, fps=8.0, label=None):
    """A small moving-square clip, decoded (what the harness hands adapters)."""
    rng = np.random.default_rng(seed)
    video = np.zeros((frames, size, size, 3), dtype=np.uint8)
    color = rng.integers(40, 255, size=3)
    for t in range(frames):
        x = (4 + 5 * t) % (size - 8)
        video[t, 10:18, x : x + 8] = color
    return VideoPart(
        ref=VideoRef(path=f"clip{seed}.mp4"),
        frames=video,
        indices=list(range(0, 2 * frames, 2)),
        timestamps=[t / fps for t in range(frames)],
        label=label,
    )


def request(seed, question, clips=1, gen=None, **clip_args):
    parts = [
        clip(seed + c, label=f"Clip {chr(65 + c)}" if clips > 1 else None, **clip_args) for c in range(clips)
    ]
    return Request(
        messages=[Message("user", [*parts, TextPart(question)])],
        gen_kwargs=gen if gen is not None else {"max_new_tokens": 5},
        doc_id=f"doc{seed}",
        task="unit",
    )


QUESTIONS = [
    "What color is the cube?",
    "How many objects move clockwise in the video? Answer with a number.",
    "Is the sphere rubber?",
]


def media_token_count(model, input_ids) -> int:
    """Placeholder tokens the processor expanded for the clips.

    Most families expand a video token; InternVL expands each frame into image-context tokens and leaves no
    video token behind, so both ids are counted (requests here hold no images).
    """
    ids = {getattr(model.processor, "video_token_id", None), getattr(model.processor, "image_token_id", None)}
    return sum(int((input_ids == i).sum()) for i in ids if i is not None)


@pytest.mark.parametrize(("family", "preset"), CASES)
def test_batched_left_padding_matches_one_at_a_time(checkpoints, family, preset):
    model = load(checkpoints, family, preset)
    batch = [request(i, q) for i, q in enumerate(QUESTIONS)]
    together = model.generate(batch)
    alone = [model.generate([r])[0] for r in batch]
    assert [r.text for r in together] == [r.text for r in alone]
    assert [r.usage for r in together] == [r.usage for r in alone]
    prompt_lengths = [r.usage["prompt_tokens"] for r in together]
    assert len(set(prompt_lengths)) == len(prompt_lengths), "prompts of different lengths exercise padding"
    for r in together:
        assert 1 <= r.usage["completion_tokens"] <= 5
        assert r.structured is None


@pytest.mark.parametrize(("family", "preset"), CASES)
def test_several_labelled_clips_keep_labels_and_order(checkpoints, family, preset):
    model = load(checkpoints, family, preset)
    two = request(10, "Which clip fits between the others?", clips=2)
    one = request(10, "Which clip fits between the others?", clips=1)
    inputs_two = model.encode([two])
    prompt = model.tokenizer.decode(inputs_two["input_ids"][0])
    assert prompt.index("Clip A:") < prompt.index("Clip B:") < prompt.index("Which clip")
    count_two = media_token_count(model, inputs_two["input_ids"])
    count_one = media_token_count(model, model.encode([one])["input_ids"])
    assert count_two == 2 * count_one > 0
    mixed = model.generate([two, one])
    assert mixed[0].text == model.generate([two])[0].text
    assert mixed[0].usage["prompt_tokens"] > mixed[1].usage["prompt_tokens"]


def test_preset_declares_its_frame_budget_and_args_override_it(checkpoints):
    assert load(checkpoints, "llava_onevision", "llava_video_7b").capabilities.max_frames == 80
    assert load(checkpoints, "qwen2_vl", "qwen2_vl_7b", max_frames="16").capabilities.max_frames == 16
    identity = load(checkpoints, "llava_onevision", "llava_video_7b").identity()
    assert identity["name"] == "llava_video_7b"
    assert identity["args"]["max_frames"] == 80
    assert "device_map" not in identity["args"], "placement must not change cache keys"


def test_preset_refuses_a_checkpoint_of_another_architecture(checkpoints):
    with pytest.raises(ValueError, match="llava_video_7b.*llava_onevision.*qwen2_vl"):
        presets.PRESETS["llava_video_7b"](pretrained=str(checkpoints["qwen2_vl"]), device_map="cpu")


def test_unknown_model_arg_is_named(checkpoints):
    with pytest.raises(ValueError, match="unknown model_args frames"):
        presets.PRESETS["qwen2_vl_7b"](pretrained=str(checkpoints["qwen2_vl"]), frames=8)


def test_missing_frames_name_the_sample(checkpoints):
    model = load(checkpoints, "qwen2_vl", "qwen2_vl_7b")
    bad = request(0, "What color?")
    bad.messages[0].content[0].frames = None
    with pytest.raises(ValueError, match="doc_id='doc0'.*clip0.mp4.*no decoded frames"):
        model.generate([bad])


def test_greedy_by_default_and_temperature_zero_is_greedy(checkpoints):
    model = load(checkpoints, "llava_onevision", "llava_onevision_7b")
    default = model.generate([request(1, QUESTIONS[0], gen={"max_new_tokens": 5})])[0].text
    zero = model.generate([request(1, QUESTIONS[0], gen={"max_new_tokens": 5, "temperature": 0})])[0].text
    assert default == zero


def test_several_samples_per_prompt_come_back_in_structured(checkpoints):
    model = load(checkpoints, "qwen2_vl", "qwen2_vl_7b")
    gen = {"max_new_tokens": 4, "temperature": 1.0, "n": 3, "seed": 0}
    response = model.generate([request(2, QUESTIONS[1], gen=gen)])[0]
    assert len(response.structured["samples"]) == 3
    assert response.text == response.structured["samples"][0]
    with pytest.raises(ValueError, match="n=3.*greedy"):
        model.generate([request(2, QUESTIONS[1], gen={"n": 3})])


def test_qwen2_5_vl_sees_the_frames_real_spacing_in_time(checkpoints):
    model = load(checkpoints, "qwen2_5_vl", "qwen2_5_vl_7b", recipe="none")
    slow = model.encode([request(3, QUESTIONS[0], fps=2.0)])["second_per_grid_ts"]
    fast = model.encode([request(3, QUESTIONS[0], fps=8.0)])["second_per_grid_ts"]
    # without the qwen-vl-utils recipe: the frames' own spacing, two frames per temporal patch: 2 / fps
    assert float(slow[0]) == pytest.approx(1.0)
    assert float(fast[0]) == pytest.approx(0.25)


def test_internvl_gets_every_decoded_frame_as_one_tile(checkpoints):
    model = load(checkpoints, "internvl", "internvl3_8b")
    assert model.capabilities.max_frames == 32
    inputs = model.encode([request(4, QUESTIONS[0], frames=6)])
    prompt = model.tokenizer.decode(inputs["input_ids"][0])
    # no resampling by the processor: six frames in, six frame tiles out, in order
    assert [f"Frame{i}:" in prompt for i in range(1, 8)] == [True] * 6 + [False]
    assert inputs["pixel_values"].shape[0] == 6
    assert media_token_count(model, inputs["input_ids"]) == 6 * model.processor.image_seq_length


def test_plugin_registers_lazily_without_importing_torch():
    code = (
        "import sys; import harness_models.hf.plugin as p; names = {}\n"
        "p.register_models(lambda n, f, description='': names.__setitem__(n, f))\n"
        "assert 'torch' not in sys.modules and 'transformers' not in sys.modules\n"
        "assert all(isinstance(f, str) and ':' in f for f in names.values())\n"
        "print(','.join(sorted(names)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names = set(out.stdout.strip().split(","))
    assert {"hf", "llava_video_7b", "llava_onevision_7b", "llava_next_video_7b", "qwen2_vl_7b"} <= names
    assert {"qwen2_5_vl_7b", "internvl3_8b", "llava_video_72b", "qwen2_5_vl_72b", "internvl3_78b"} <= names
