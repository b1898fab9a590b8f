"""Token budgets: what a request's frames cost in visual tokens, and whether they fit the context.

From a loaded checkpoint's config and processor (the real one or its tiny mirror) this computes the context
length, the visual tokens one frame costs and the frames that fit. The adapter lowers its frame budget up
front when the preset's budget would overflow (and says so in the log and in `identity()["args"]["budget"]`),
and refuses a request whose prompt still does not fit (`ContextOverflow`, reason `context_overflow`): the
harness never truncates a prompt silently.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Optional

from harness_models.hf.recipes import QWEN_VL_UTILS

# Tokens kept free for the question, the chat template and labels when fitting frames up front.
TEXT_RESERVE = 512


class ContextOverflow(ValueError):
    """A request's prompt is longer than the model's context."""

    reason = "context_overflow"


@dataclass(frozen=True)
class Budget:
    """Per-preset numbers: context, visual tokens per frame (at the smallest frame the recipe allows for
    dynamic-resolution models), per-video extra tokens, and the frames that fit beside TEXT_RESERVE."""

    context_length: Optional[int]
    tokens_per_frame: Optional[float]
    tokens_per_video: int
    frames_fit: Optional[int]

    def as_dict(self) -> dict[str, Any]:
        """Plain numbers for identity() and results."""
        return asdict(self)


def context_length(config: Any) -> Optional[int]:
    """The text model's context: max_position_embeddings, times a linear/dynamic rope factor if it has one."""
    text = getattr(config, "text_config", None) or config
    length = getattr(text, "max_position_embeddings", None)
    if length is None:
        return None
    rope = getattr(text, "rope_scaling", None) or {}
    if isinstance(rope, dict) and rope.get("rope_type", rope.get("type")) in ("linear", "dynamic"):
        length = int(length * float(rope.get("factor", 1.0)))
    return int(length)


def _size(processor: Any, key: str) -> Optional[int]:
    video = getattr(processor, "video_processor", None)
    size = getattr(video, "crop_size", None) if key == "crop" else getattr(video, "size", None)
    if size is None:
        return None
    size = dict(size) if not isinstance(size, dict) else size
    return size.get("height") or size.get("shortest_edge")


def frame_cost(model_type: str, config: Any, processor: Any, recipe_name: str) -> tuple[Optional[float], int]:
    """(visual tokens per frame, extra tokens per video) for a family, None per frame when unknown."""
    vision = getattr(config, "vision_config", None)
    if model_type == "llava_onevision":
        side = math.ceil((vision.image_size // vision.patch_size) / 2)
        return float(side * side), 1  # + one newline token per video
    if model_type == "llava_next_video":
        crop = _size(processor, "crop") or vision.image_size
        per_side = crop // vision.patch_size
        return float(per_side * per_side // 4), 0
    if model_type == "internvl":
        return float(processor.image_seq_length), 0
    if model_type in ("qwen2_vl", "qwen2_5_vl", "qwen3_vl"):
        video = processor.video_processor
        factor = video.patch_size * video.merge_size
        temporal = video.temporal_patch_size
        if recipe_name == "qwen_vl_utils":
            min_pixels = QWEN_VL_UTILS["VIDEO_MIN_PIXELS"]
        else:
            min_pixels = _size(processor, "size") or factor * factor
        # the smallest frame the bounds allow: cap_pixels_per_frame floors each frame at 1.05 * min_pixels
        per_group = math.ceil(int(min_pixels * 1.05) / (factor * factor))
        extra = 8 if model_type == "qwen3_vl" else 0  # Qwen3-VL writes "<t seconds>" before each frame pair
        return (per_group + extra) / temporal, 2
    return None, 0


def compute(model_type: str, config: Any, processor: Any, recipe_name: str) -> Budget:
    """The Budget of a loaded checkpoint."""
    context = context_length(config)
    per_frame, per_video = frame_cost(model_type, config, processor, recipe_name)
    fit = None
    if context and per_frame:
        fit = max(1, int((context - TEXT_RESERVE - per_video) // per_frame))
        if model_type in ("qwen2_vl", "qwen2_5_vl", "qwen3_vl"):
            fit -= fit % 2  # frames go in pairs (FRAME_FACTOR 2)
    return Budget(
        context_length=context, tokens_per_frame=per_frame, tokens_per_video=per_video, frames_fit=fit
    )


def check_prompt(prompt_tokens: int, visual_tokens: int, context: Optional[int], where: str) -> None:
    """Raise ContextOverflow when a prompt does not fit the context (never truncate it)."""
    if context is not None and prompt_tokens >= context:
        raise ContextOverflow(
            f"{where}: the prompt needs {prompt_tokens} tokens ({visual_tokens} of them visual) but the model's "
            f"context is {context}; lower max_frames (or the frames' size) for this model"
        )
