"""Each model family's inference recipe as its authors run it, with a switch (`recipe=none`) to turn it off.

A recipe adds what the authors' own inference code adds around the frames, beyond what the checkpoint's
processor does by itself:

- `llava_video_time`: LLaVA-Video's time instruction after each video, formatted as LLaVA-NeXT's
  `docs/LLaVA_Video_1003.md` (model card) and `llava/train/train.py` write it: `<video>\\n{instruction}\\n`
  then the question, with the frame times `",".join(f"{t:.2f}s")` and `video_time:.2f`.
- `qwen_vl_utils`: Qwen2-VL / Qwen2.5-VL frame sizing and timing as qwen-vl-utils' `fetch_video` does it:
  per-frame pixel bounds VIDEO_MIN_PIXELS..VIDEO_MAX_PIXELS, each frame capped at an even share of the
  total-video budget (MODEL_SEQ_LEN * 28 * 28 * 0.9, lowered here to the model's context), frames in pairs
  (FRAME_FACTOR 2: an odd clip's last frame is repeated, as the processor pads), and the sampled frame rate
  `nframes / duration`, which sets `second_per_grid_ts = 2 / fps`.
- `qwen3_vl`: Qwen3-VL's processor writes each frame pair's time (`<t seconds>`) from the clip's frame
  rate; the recipe gives it `nframes / duration`, keeps the processor from resampling (`do_sample_frames`
  off) and uses qwen-vl-utils' Qwen3-VL pixel bounds (128..768 tokens of 32 x 32 px per frame pair).
- `internvl3_card` / `llava_onevision_card` / `llava_next_video_card`: the model cards' video layouts
  (InternVL3: `Frame{i}: <img>...</img>` per frame, one 448 px tile each; LLaVA-OneVision and
  LLaVA-NeXT-Video: the video token then the text). The transformers processors already produce exactly
  these layouts, so these recipes add nothing and `recipe=none` gives the same prompt; they are named so
  that results say which layout ran.

A recipe never resamples frames: the task's frame spec picked them, the harness decoded them.
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import Any, ClassVar, Optional

import numpy as np

from harness.api import Message, ModelArgsError, Request, VideoPart

# qwen-vl-utils vision_process.py (Qwen2-VL / Qwen2.5-VL reference sampler and resizer): the constants the
# `qwen_vl_utils` recipe and the token budgets (models/hf/budget.py) use.
QWEN_VL_UTILS = {
    "IMAGE_FACTOR": 28,
    "VIDEO_MIN_PIXELS": 128 * 28 * 28,
    "VIDEO_MAX_PIXELS": 768 * 28 * 28,
    "FRAME_FACTOR": 2,
    "FPS": 2.0,
    "FPS_MIN_FRAMES": 4,
    "FPS_MAX_FRAMES": 768,
    "MODEL_SEQ_LEN": 128000,  # VIDEO_TOTAL_PIXELS = MODEL_SEQ_LEN * 28 * 28 * 0.9
}


def videos_of(request: Request) -> list[VideoPart]:
    """The request's video parts in prompt order."""
    return [p for m in request.messages for p in m.content if isinstance(p, VideoPart)]


def source_fps(part: VideoPart) -> Optional[float]:
    """The source video's frame rate, from the frames' source indices and clip timestamps (None if unknown)."""
    rates = []
    points = list(zip(part.indices, part.timestamps, strict=False))
    for (i0, t0), (i1, t1) in zip(points[:-1], points[1:], strict=True):
        if t1 - t0 > 1e-9 and i1 != i0:
            rates.append(abs(i1 - i0) / (t1 - t0))
    return statistics.median(rates) if rates else None


def clip_duration(part: VideoPart) -> float:
    """Seconds the clip lasts: its last frame's time plus one source frame.

    Exact for the harness's `uniform` strategy (both endpoints included), which is how LLaVA-Video's and
    qwen-vl-utils' samplers pick frames (linspace over the whole clip): `total_frames / fps` there.
    """
    if not part.timestamps:
        return 0.0
    fps = source_fps(part)
    last = float(part.timestamps[-1])
    return last + (1.0 / fps if fps else 0.0)


class Recipe:
    """No recipe: the checkpoint's processor and chat template alone."""

    name: ClassVar[str] = "none"
    source: ClassVar[str] = "the checkpoint's processor and chat template only"

    def prepare(self, request: Request) -> Request:
        """The request as the recipe hands it on (default: unchanged)."""
        return request

    def texts_after_video(self, part: VideoPart) -> Optional[str]:
        """Text the recipe puts right after a video (None: nothing)."""
        return None

    def metadata(self, part: VideoPart, meta: dict[str, Any]) -> dict[str, Any]:
        """The transformers VideoMetadata of a clip, as the recipe's timing wants it."""
        return meta

    def processor_kwargs(self, context_length: Optional[int], n_videos: int) -> dict[str, Any]:
        """Extra processor call kwargs for a request carrying `n_videos` clips."""
        return {}


class LlavaVideoTime(Recipe):
    """LLaVA-Video's time instruction (seconds, frame count, frame times) after each video."""

    name: ClassVar[str] = "llava_video_time"
    source: ClassVar[str] = (
        "LLaVA-VL/LLaVA-NeXT docs/LLaVA_Video_1003.md (model card inference) and llava/train/train.py "
        "(add_time_instruction); lmms-eval llava_vid"
    )

    def texts_after_video(self, part: VideoPart) -> Optional[str]:
        times = ",".join(f"{float(t):.2f}s" for t in part.timestamps)
        count = len(part.frames) if part.frames is not None else len(part.timestamps)
        return (
            f"The video lasts for {clip_duration(part):.2f} seconds, and {count} frames are uniformly sampled "
            f"from it. These frames are located at {times}.Please answer the following questions related to "
            "this video.\n"
        )


class QwenVLUtils(Recipe):
    """qwen-vl-utils' per-frame pixel bounds, total-video pixel budget and sampled frame rate."""

    name: ClassVar[str] = "qwen_vl_utils"
    source: ClassVar[str] = (
        "QwenLM qwen-vl-utils vision_process.py (smart_resize, fetch_video, smart_nframes)"
    )

    def metadata(self, part: VideoPart, meta: dict[str, Any]) -> dict[str, Any]:
        duration = clip_duration(part)
        count = int(meta["total_num_frames"])
        if duration > 0 and count > 1:
            # qwen-vl-utils: sample_fps = nframes / total_frames * video_fps = nframes / duration
            meta = {**meta, "fps": count / duration, "duration": duration}
        return meta

    def processor_kwargs(self, context_length: Optional[int], n_videos: int) -> dict[str, Any]:
        seq_len = QWEN_VL_UTILS["MODEL_SEQ_LEN"]
        if context_length:
            seq_len = min(seq_len, context_length)
        return {
            "size": {
                "shortest_edge": QWEN_VL_UTILS["VIDEO_MIN_PIXELS"],
                "longest_edge": QWEN_VL_UTILS["VIDEO_MAX_PIXELS"],
            },
            "cap_pixels_per_frame": True,
            # the total-video budget is per video in qwen-vl-utils; several clips share the context here
            "max_video_tokens": max(1, seq_len // max(1, n_videos)),
        }


class Qwen3VLTime(QwenVLUtils):
    """Qwen3-VL: the processor writes `<t seconds>` per frame pair from the clip's frame rate; frames are
    never resampled by the processor (do_sample_frames off); qwen-vl-utils' Qwen3 pixel bounds."""

    name: ClassVar[str] = "qwen3_vl"
    source: ClassVar[str] = (
        "qwen-vl-utils vision_process.py for Qwen3-VL (VIDEO_MIN/MAX_TOKEN_NUM 128/768 at 32 px per token, "
        "FRAME_FACTOR 2) and transformers Qwen3VLProcessor timestamps"
    )

    def prepare(self, request: Request) -> Request:
        """A one-frame clip is repeated to a frame pair (FRAME_FACTOR 2), as the Qwen2-VL processor pads
        odd clips: Qwen3-VL's processor refuses fewer frames than its temporal patch."""
        messages = []
        for message in request.messages:
            content = []
            for part in message.content:
                if isinstance(part, VideoPart) and part.frames is not None and len(part.frames) == 1:
                    part = dataclasses.replace(
                        part,
                        frames=np.concatenate([part.frames, part.frames]),
                        indices=list(part.indices) * 2,
                        timestamps=list(part.timestamps) * 2,
                    )
                content.append(part)
            messages.append(Message(message.role, content))
        return dataclasses.replace(request, messages=messages)

    def metadata(self, part: VideoPart, meta: dict[str, Any]) -> dict[str, Any]:
        meta = super().metadata(part, meta)
        if not meta.get("fps"):
            meta = {**meta, "fps": QWEN_VL_UTILS["FPS"]}  # a single frame: any rate gives time 0
        return meta

    def processor_kwargs(self, context_length: Optional[int], n_videos: int) -> dict[str, Any]:
        return {
            "do_sample_frames": False,
            "size": {"shortest_edge": 128 * 32 * 32, "longest_edge": 768 * 32 * 32},
        }


class InternVL3Card(Recipe):
    name: ClassVar[str] = "internvl3_card"
    source: ClassVar[str] = (
        "InternVL3 model card video example (Frame{i}: <image> per frame, load_video max_num=1 at 448 px); "
        "transformers InternVLProcessor.replace_video_token writes the same layout"
    )


class LlavaOnevisionCard(Recipe):
    name: ClassVar[str] = "llava_onevision_card"
    source: ClassVar[str] = "llava-hf/llava-onevision-qwen2-*-hf model card video example and chat template"


class LlavaNextVideoCard(Recipe):
    name: ClassVar[str] = "llava_next_video_card"
    source: ClassVar[str] = "llava-hf/LLaVA-NeXT-Video-7B-hf model card (USER: <video>\\n... ASSISTANT:)"


RECIPES: dict[str, type[Recipe]] = {
    cls.name: cls
    for cls in (
        Recipe,
        LlavaVideoTime,
        QwenVLUtils,
        Qwen3VLTime,
        InternVL3Card,
        LlavaOnevisionCard,
        LlavaNextVideoCard,
    )
}


def resolve(requested: Optional[str], default: str, model: str) -> Recipe:
    """The recipe `recipe=` names: `authors` (or unset) is the preset's own, `none` (or `off`) turns it off."""
    name = (requested or "authors").strip().lower()
    if name == "off":
        name = "none"
    if name == "authors":
        name = default
    if name not in RECIPES:
        raise ModelArgsError(
            f"model '{model}': recipe={requested!r} is not one of authors, off, {', '.join(sorted(RECIPES))}"
        )
    return RECIPES[name]()
