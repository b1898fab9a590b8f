"""The named presets over the `hf` adapter as one data table: registration and the preset classes read it.

A family is an architecture with its authors' inference recipe and the frame budget the papers ran it with
(and where that number comes from); a preset is a checkpoint of a family, with the one-line description
`harness ls models` prints. Adding a preset is one row here. Importing this module imports nothing heavy,
so the plugin registers every preset from it without loading the adapter. docs/models.md's preset table is
checked against this one (tests/test_models_preset_table.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# every preset decodes greedily (unless a task asks for sampling) in bfloat16
DTYPE = "bfloat16"


@dataclass(frozen=True)
class Family:
    """An architecture: the checkpoint type it must be, its authors' recipe, its frame budget and why, and the
    lmms-eval model it corresponds to (which model_args an lmms-eval task's `lmms_eval_specific_kwargs` use)."""

    model_type: str
    recipe: str
    max_frames: int
    source: str
    lmms_eval_model: str


@dataclass(frozen=True)
class Preset:
    """One named checkpoint of a family; `checkpoint` None: none is published in transformers format.
    `max_new_tokens` applies where the task sets none."""

    name: str
    family: str
    checkpoint: Optional[str]
    description: str
    note: str = ""
    max_new_tokens: int = 256


FAMILIES: dict[str, Family] = {
    "llava_video": Family(
        "llava_onevision",
        "llava_video_time",
        80,
        "LLaVA-Video-Qwen2 in transformers format (LLaVA-OneVision architecture: SigLIP + Qwen2). Frames: 80, as "
        'the CycliST paper ran the LLaVA-Video family ("we provide half the frames", i.e. 80 of 160, Sec. 5); '
        "LLaVA-Video's own evaluations use 64 frames (Zhang et al. 2024, lmms-eval max_frames_num).",
        "llava_vid",
    ),
    "llava_onevision": Family(
        "llava_onevision",
        "llava_onevision_card",
        160,
        "LLaVA-OneVision-Qwen2-OV (SigLIP + Qwen2). Frames: the CycliST paper gave LLaVA-OV the complete "
        "160-frame video (Sec. 5: only the LLaVA-Video family got half), so the cap is 160 (160 x 196 pooled "
        "tokens fits Qwen2's 32k context). The LLaVA-OneVision paper's own video evaluations use 32 frames: "
        "pass max_frames=32 for that setting.",
        "llava_onevision",
    ),
    "llava_next_video": Family(
        "llava_next_video",
        "llava_next_video_card",
        32,
        "LLaVA-NeXT-Video (CLIP-L/336 + Vicuna-7B or Nous-Hermes-2-Yi-34B, 2x2 pooled video tokens). Frames: "
        '32, the number its authors sample uniformly per video (LLaVA-NeXT-Video blog, May 2024: "32 '
        "frames\"); the published config's 4,096-token context fits 24, so the budget is lowered up front.",
        "llava_vid",
    ),
    "qwen2_vl": Family(
        "qwen2_vl",
        "qwen_vl_utils",
        768,
        "Qwen2-VL-Instruct. Frames: up to 768, the cap of the authors' reference frame sampler (qwen-vl-utils "
        "FPS_MAX_FRAMES, with 2 fps sampling); the task's frame spec decides below that. Frame timing comes "
        "from the frames' timestamps.",
        "qwen2_vl",
    ),
    "qwen2_5_vl": Family(
        "qwen2_5_vl",
        "qwen_vl_utils",
        768,
        "Qwen2.5-VL-Instruct. Frames: up to 768 (qwen-vl-utils FPS_MAX_FRAMES, 2 fps sampling by the authors); "
        "absolute time is encoded from the frames' timestamps (second_per_grid_ts), so timestamps matter.",
        "qwen2_5_vl",
    ),
    "internvl3": Family(
        "internvl",
        "internvl3_card",
        32,
        "InternVL3 in transformers-native format (InternViT + Qwen2.5). Frames: 32, the top of the 8-32 frames "
        "InternVL3 samples per video in training (quoted by the CycliST paper, Sec. 6); each frame is one "
        "448x448 tile (256 tokens), so 32 frames fit the 32k context. The CycliST paper gave InternVL3 the "
        "full 160 frames; pass max_frames=160 to match it where memory allows.",
        "internvl3",
    ),
    "qwen3_vl": Family(
        "qwen3_vl",
        "qwen3_vl",
        768,
        "Qwen3-VL (transformers-native `qwen3_vl`). Frames: up to 768 (qwen-vl-utils FPS_MAX_FRAMES, 2 fps by "
        "the authors); the TempCloze paper evaluated Qwen3-VL Instruct and Thinking checkpoints without stating "
        "a per-model frame count, so the task's frame spec decides below the cap. Timestamps matter: the "
        "processor writes each frame pair's time as text.",
        "qwen3_vl",
    ),
}

_QWEN2_CONTEXT = "up to 768 frames (476 fit its 32,768-token context)"
_NEXT_CONTEXT = "32 frames (24 fit its 4,096-token context)"

PRESETS: tuple[Preset, ...] = (
    Preset(
        "llava_video_7b",
        "llava_video",
        "llava-hf/LLaVA-Video-7B-Qwen2-hf",
        "LLaVA-Video-7B-Qwen2 (HF format), 80 frames as in CycliST, with its time instruction",
        "A conversion of lmms-lab/LLaVA-Video-7B-Qwen2.",
    ),
    Preset(
        "llava_video_72b",
        "llava_video",
        None,
        "LLaVA-Video-72B-Qwen2 (needs pretrained=converted folder), 80 frames",
        "No transformers-format conversion is published: convert lmms-lab/LLaVA-Video-72B-Qwen2 with "
        "transformers' `convert_llava_onevision_weights_to_hf.py` and pass pretrained=/path/to/converted.",
    ),
    Preset(
        "llava_onevision_7b",
        "llava_onevision",
        "llava-hf/llava-onevision-qwen2-7b-ov-hf",
        "LLaVA-OneVision-Qwen2-7B-OV, up to 160 frames",
    ),
    Preset(
        "llava_onevision_72b",
        "llava_onevision",
        "llava-hf/llava-onevision-qwen2-72b-ov-hf",
        "LLaVA-OneVision-Qwen2-72B-OV, up to 160 frames",
    ),
    Preset(
        "llava_next_video_7b",
        "llava_next_video",
        "llava-hf/LLaVA-NeXT-Video-7B-hf",
        f"LLaVA-NeXT-Video-7B, {_NEXT_CONTEXT}",
    ),
    Preset(
        "llava_next_video_34b",
        "llava_next_video",
        "llava-hf/LLaVA-NeXT-Video-34B-hf",
        f"LLaVA-NeXT-Video-34B, {_NEXT_CONTEXT}",
    ),
    Preset("qwen2_vl_2b", "qwen2_vl", "Qwen/Qwen2-VL-2B-Instruct", f"Qwen2-VL-2B-Instruct, {_QWEN2_CONTEXT}"),
    Preset("qwen2_vl_7b", "qwen2_vl", "Qwen/Qwen2-VL-7B-Instruct", f"Qwen2-VL-7B-Instruct, {_QWEN2_CONTEXT}"),
    Preset(
        "qwen2_vl_72b", "qwen2_vl", "Qwen/Qwen2-VL-72B-Instruct", f"Qwen2-VL-72B-Instruct, {_QWEN2_CONTEXT}"
    ),
    Preset(
        "qwen2_5_vl_3b",
        "qwen2_5_vl",
        "Qwen/Qwen2.5-VL-3B-Instruct",
        "Qwen2.5-VL-3B-Instruct, up to 768 frames",
    ),
    Preset(
        "qwen2_5_vl_7b",
        "qwen2_5_vl",
        "Qwen/Qwen2.5-VL-7B-Instruct",
        "Qwen2.5-VL-7B-Instruct, up to 768 frames",
    ),
    Preset(
        "qwen2_5_vl_32b",
        "qwen2_5_vl",
        "Qwen/Qwen2.5-VL-32B-Instruct",
        "Qwen2.5-VL-32B-Instruct, up to 768 frames",
    ),
    Preset(
        "qwen2_5_vl_72b",
        "qwen2_5_vl",
        "Qwen/Qwen2.5-VL-72B-Instruct",
        "Qwen2.5-VL-72B-Instruct, up to 768 frames",
    ),
    Preset(
        "internvl3_8b",
        "internvl3",
        "OpenGVLab/InternVL3-8B-hf",
        "InternVL3-8B (transformers-native), 32 frames",
    ),
    Preset(
        "internvl3_38b",
        "internvl3",
        "OpenGVLab/InternVL3-38B-hf",
        "InternVL3-38B (transformers-native), 32 frames",
    ),
    Preset(
        "internvl3_78b",
        "internvl3",
        "OpenGVLab/InternVL3-78B-hf",
        "InternVL3-78B (transformers-native), 32 frames",
    ),
    Preset("qwen3_vl_8b", "qwen3_vl", "Qwen/Qwen3-VL-8B-Instruct", "Qwen3-VL-8B-Instruct, up to 768 frames"),
    Preset(
        "qwen3_vl_32b",
        "qwen3_vl",
        "Qwen/Qwen3-VL-32B-Instruct",
        "Qwen3-VL-32B-Instruct, up to 768 frames",
        "TempCloze's Qwen3VL-32B-I.",
    ),
    Preset(
        "qwen3_vl_32b_thinking",
        "qwen3_vl",
        "Qwen/Qwen3-VL-32B-Thinking",
        "Qwen3-VL-32B-Thinking, up to 768 frames",
        "TempCloze's Qwen3VL-32B-T. It answers after its reasoning, so it gets room: max_new_tokens 8192 "
        "unless the task sets its own.",
        max_new_tokens=8192,
    ),
)

# presets with an adapter of their own (the checkpoint's remote code), by "module:Class"
REMOTE: dict[str, tuple[str, str]] = {
    "internvideo2_5_8b": (
        "harness_models.hf.internvideo:InternVideo25",
        "InternVideo2.5-Chat-8B (trust_remote_code), 160 frames as in CycliST",
    ),
}
