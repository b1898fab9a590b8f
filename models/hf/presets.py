"""Named presets over the `hf` adapter: a checkpoint, its frame budget and decoding, with sources.

Every preset takes the same model_args as `hf` (pretrained=... points it at a local copy of the weights;
max_frames=... changes the budget). The frame budget is a cap: the harness lowers a task's frame spec to
it, never raises it. All presets decode greedily unless a task asks for sampling (the CycliST and
TempCloze protocols are greedy, pass@k tasks set their own temperature).
"""

from __future__ import annotations

from typing import ClassVar, Optional

from models.hf.adapter import HFModel

_LLAVA_OV_TYPES = ("llava_onevision",)
_LLAVA_NEXT_VIDEO_TYPES = ("llava_next_video",)
_QWEN2_VL_TYPES = ("qwen2_vl",)
_QWEN2_5_VL_TYPES = ("qwen2_5_vl",)
_INTERNVL_TYPES = ("internvl",)
_QWEN3_VL_TYPES = ("qwen3_vl",)


class _Preset(HFModel):
    default_dtype: ClassVar[str] = "bfloat16"
    default_gen_kwargs: ClassVar[dict] = {"max_new_tokens": 256}


# --------------------------------------------------------------------------- LLaVA-Video (OneVision arch.)
class LlavaVideo7B(_Preset):
    """LLaVA-Video-7B-Qwen2 in transformers format (LLaVA-OneVision architecture: SigLIP + Qwen2-7B).

    Checkpoint: llava-hf/LLaVA-Video-7B-Qwen2-hf (conversion of lmms-lab/LLaVA-Video-7B-Qwen2).
    Frames: 80, as the CycliST paper ran the LLaVA-Video family ("we provide half the frames", i.e. 80 of
    160, Sec. 5); LLaVA-Video's own evaluations use 64 frames (Zhang et al. 2024, lmms-eval max_frames_num).
    """

    name: ClassVar[str] = "llava_video_7b"
    lmms_eval_model: ClassVar[Optional[str]] = "llava_vid"
    default_pretrained: ClassVar[Optional[str]] = "llava-hf/LLaVA-Video-7B-Qwen2-hf"
    default_max_frames: ClassVar[Optional[int]] = 80
    expected_model_types: ClassVar[tuple[str, ...]] = _LLAVA_OV_TYPES
    default_recipe: ClassVar[str] = "llava_video_time"


class LlavaVideo72B(LlavaVideo7B):
    """LLaVA-Video-72B-Qwen2 (same architecture, Qwen2-72B); 80 frames as in the CycliST paper.

    No transformers-format conversion is published: convert lmms-lab/LLaVA-Video-72B-Qwen2 with
    transformers' `convert_llava_onevision_weights_to_hf.py` and pass pretrained=/path/to/converted.
    """

    name: ClassVar[str] = "llava_video_72b"
    default_pretrained: ClassVar[Optional[str]] = None


# --------------------------------------------------------------------------- LLaVA-OneVision
class LlavaOnevision7B(_Preset):
    """LLaVA-OneVision-Qwen2-7B-OV (SigLIP + Qwen2-7B), checkpoint llava-hf/llava-onevision-qwen2-7b-ov-hf.

    Frames: the CycliST paper gave LLaVA-OV the complete 160-frame video (Sec. 5: only the LLaVA-Video
    family got half), so the cap is 160 (160 x 196 pooled tokens fits Qwen2's 32k context). The
    LLaVA-OneVision paper's own video evaluations use 32 frames: pass max_frames=32 for that setting.
    """

    name: ClassVar[str] = "llava_onevision_7b"
    lmms_eval_model: ClassVar[Optional[str]] = "llava_onevision"
    default_pretrained: ClassVar[Optional[str]] = "llava-hf/llava-onevision-qwen2-7b-ov-hf"
    default_max_frames: ClassVar[Optional[int]] = 160
    expected_model_types: ClassVar[tuple[str, ...]] = _LLAVA_OV_TYPES
    default_recipe: ClassVar[str] = "llava_onevision_card"


class LlavaOnevision72B(LlavaOnevision7B):
    """LLaVA-OneVision-Qwen2-72B-OV, checkpoint llava-hf/llava-onevision-qwen2-72b-ov-hf; 160 frames (CycliST)."""

    name: ClassVar[str] = "llava_onevision_72b"
    default_pretrained: ClassVar[Optional[str]] = "llava-hf/llava-onevision-qwen2-72b-ov-hf"


# --------------------------------------------------------------------------- LLaVA-NeXT-Video
class LlavaNextVideo7B(_Preset):
    """LLaVA-NeXT-Video-7B (CLIP-L/336 + Vicuna-7B, 2x2 pooled video tokens), llava-hf/LLaVA-NeXT-Video-7B-hf.

    Frames: 32, the number its authors sample uniformly per video (LLaVA-NeXT-Video blog, May 2024:
    "32 frames"; 32 x 144 tokens fits the model's rope-scaled 8k context).
    """

    name: ClassVar[str] = "llava_next_video_7b"
    lmms_eval_model: ClassVar[Optional[str]] = "llava_vid"
    default_pretrained: ClassVar[Optional[str]] = "llava-hf/LLaVA-NeXT-Video-7B-hf"
    default_max_frames: ClassVar[Optional[int]] = 32
    expected_model_types: ClassVar[tuple[str, ...]] = _LLAVA_NEXT_VIDEO_TYPES
    default_recipe: ClassVar[str] = "llava_next_video_card"


class LlavaNextVideo34B(LlavaNextVideo7B):
    """LLaVA-NeXT-Video-34B (same architecture on Nous-Hermes-2-Yi-34B), llava-hf/LLaVA-NeXT-Video-34B-hf; 32 frames."""

    name: ClassVar[str] = "llava_next_video_34b"
    default_pretrained: ClassVar[Optional[str]] = "llava-hf/LLaVA-NeXT-Video-34B-hf"


# --------------------------------------------------------------------------- Qwen2-VL / Qwen2.5-VL
class Qwen2VL7B(_Preset):
    """Qwen2-VL-7B-Instruct, Qwen/Qwen2-VL-7B-Instruct.

    Frames: up to 768, the cap of the authors' reference frame sampler (qwen-vl-utils FPS_MAX_FRAMES, with
    2 fps sampling); the task's frame spec decides below that. Frame timing comes from the frames'
    timestamps.
    """

    name: ClassVar[str] = "qwen2_vl_7b"
    lmms_eval_model: ClassVar[Optional[str]] = "qwen2_vl"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen2-VL-7B-Instruct"
    default_max_frames: ClassVar[Optional[int]] = 768
    expected_model_types: ClassVar[tuple[str, ...]] = _QWEN2_VL_TYPES
    default_recipe: ClassVar[str] = "qwen_vl_utils"


class Qwen2VL2B(Qwen2VL7B):
    """Qwen2-VL-2B-Instruct, Qwen/Qwen2-VL-2B-Instruct; same sampling as qwen2_vl_7b."""

    name: ClassVar[str] = "qwen2_vl_2b"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen2-VL-2B-Instruct"


class Qwen2VL72B(Qwen2VL7B):
    """Qwen2-VL-72B-Instruct, Qwen/Qwen2-VL-72B-Instruct; same sampling as qwen2_vl_7b."""

    name: ClassVar[str] = "qwen2_vl_72b"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen2-VL-72B-Instruct"


class Qwen25VL7B(_Preset):
    """Qwen2.5-VL-7B-Instruct, Qwen/Qwen2.5-VL-7B-Instruct.

    Frames: up to 768 (qwen-vl-utils FPS_MAX_FRAMES, 2 fps sampling by the authors); absolute time is
    encoded from the frames' timestamps (second_per_grid_ts), so timestamps matter for this model.
    """

    name: ClassVar[str] = "qwen2_5_vl_7b"
    lmms_eval_model: ClassVar[Optional[str]] = "qwen2_5_vl"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen2.5-VL-7B-Instruct"
    default_max_frames: ClassVar[Optional[int]] = 768
    expected_model_types: ClassVar[tuple[str, ...]] = _QWEN2_5_VL_TYPES
    default_recipe: ClassVar[str] = "qwen_vl_utils"


class Qwen25VL3B(Qwen25VL7B):
    """Qwen2.5-VL-3B-Instruct, Qwen/Qwen2.5-VL-3B-Instruct; same sampling as qwen2_5_vl_7b."""

    name: ClassVar[str] = "qwen2_5_vl_3b"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen2.5-VL-3B-Instruct"


class Qwen25VL32B(Qwen25VL7B):
    """Qwen2.5-VL-32B-Instruct, Qwen/Qwen2.5-VL-32B-Instruct; same sampling as qwen2_5_vl_7b."""

    name: ClassVar[str] = "qwen2_5_vl_32b"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen2.5-VL-32B-Instruct"


class Qwen25VL72B(Qwen25VL7B):
    """Qwen2.5-VL-72B-Instruct, Qwen/Qwen2.5-VL-72B-Instruct; same sampling as qwen2_5_vl_7b."""

    name: ClassVar[str] = "qwen2_5_vl_72b"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen2.5-VL-72B-Instruct"


# --------------------------------------------------------------------------- InternVL3 (transformers-native)
class InternVL3_8B(_Preset):
    """InternVL3-8B in transformers-native format (InternViT-300M + Qwen2.5-7B), OpenGVLab/InternVL3-8B-hf.

    Frames: 32, the top of the 8-32 frames InternVL3 samples per video in training (quoted by the CycliST
    paper, Sec. 6); each frame is one 448x448 tile (256 tokens), so 32 frames fit the 32k context. The
    CycliST paper gave InternVL3 the full 160 frames; pass max_frames=160 to match it where memory allows.
    """

    name: ClassVar[str] = "internvl3_8b"
    lmms_eval_model: ClassVar[Optional[str]] = "internvl3"
    default_pretrained: ClassVar[Optional[str]] = "OpenGVLab/InternVL3-8B-hf"
    default_max_frames: ClassVar[Optional[int]] = 32
    expected_model_types: ClassVar[tuple[str, ...]] = _INTERNVL_TYPES
    default_recipe: ClassVar[str] = "internvl3_card"


class InternVL3_38B(InternVL3_8B):
    """InternVL3-38B (transformers-native), OpenGVLab/InternVL3-38B-hf; same sampling as internvl3_8b."""

    name: ClassVar[str] = "internvl3_38b"
    default_pretrained: ClassVar[Optional[str]] = "OpenGVLab/InternVL3-38B-hf"


class InternVL3_78B(InternVL3_8B):
    """InternVL3-78B (transformers-native), OpenGVLab/InternVL3-78B-hf; same sampling as internvl3_8b."""

    name: ClassVar[str] = "internvl3_78b"
    default_pretrained: ClassVar[Optional[str]] = "OpenGVLab/InternVL3-78B-hf"


# --------------------------------------------------------------------------- Qwen3-VL
class Qwen3VL8B(_Preset):
    """Qwen3-VL-8B-Instruct, Qwen/Qwen3-VL-8B-Instruct (transformers-native `qwen3_vl`).

    Frames: up to 768 (qwen-vl-utils FPS_MAX_FRAMES, 2 fps by the authors); the TempCloze paper evaluated
    Qwen3-VL Instruct and Thinking checkpoints without stating a per-model frame count, so the task's frame
    spec decides below the cap. Timestamps matter: the processor writes each frame pair's time as text.
    """

    name: ClassVar[str] = "qwen3_vl_8b"
    lmms_eval_model: ClassVar[Optional[str]] = "qwen3_vl"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen3-VL-8B-Instruct"
    default_max_frames: ClassVar[Optional[int]] = 768
    expected_model_types: ClassVar[tuple[str, ...]] = _QWEN3_VL_TYPES
    default_recipe: ClassVar[str] = "qwen3_vl"


class Qwen3VL32B(Qwen3VL8B):
    """Qwen3-VL-32B-Instruct (TempCloze's Qwen3VL-32B-I), Qwen/Qwen3-VL-32B-Instruct."""

    name: ClassVar[str] = "qwen3_vl_32b"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen3-VL-32B-Instruct"


class Qwen3VL32BThinking(Qwen3VL8B):
    """Qwen3-VL-32B-Thinking (TempCloze's Qwen3VL-32B-T), Qwen/Qwen3-VL-32B-Thinking; answers after its
    reasoning, so give it room: max_new_tokens 8192 unless the task sets its own."""

    name: ClassVar[str] = "qwen3_vl_32b_thinking"
    default_pretrained: ClassVar[Optional[str]] = "Qwen/Qwen3-VL-32B-Thinking"
    default_gen_kwargs: ClassVar[dict] = {"max_new_tokens": 8192}


PRESETS: dict[str, type[HFModel]] = {
    cls.name: cls
    for cls in (
        LlavaVideo7B,
        LlavaVideo72B,
        LlavaOnevision7B,
        LlavaOnevision72B,
        LlavaNextVideo7B,
        LlavaNextVideo34B,
        Qwen2VL2B,
        Qwen2VL7B,
        Qwen2VL72B,
        Qwen25VL3B,
        Qwen25VL7B,
        Qwen25VL32B,
        Qwen25VL72B,
        InternVL3_8B,
        InternVL3_38B,
        InternVL3_78B,
        Qwen3VL8B,
        Qwen3VL32B,
        Qwen3VL32BThinking,
    )
}
