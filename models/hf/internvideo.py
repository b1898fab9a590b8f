"""InternVideo2.5-Chat through its authors' remote code (`trust_remote_code`), as their demo.py runs it.

OpenGVLab/InternVideo2_5_Chat_8B ships its own modelling code (InternVL2.5 lineage with token
compression) and no transformers processor, so it cannot go through `hf`. This adapter follows the
checkpoint's demo.py: every decoded frame becomes one 448 x 448 tile (bicubic resize, ImageNet mean/std,
`max_num=1`: no extra tiles, no thumbnail), the prompt puts `Frame{i}: <image>\\n` per frame before the
question, and `model.chat(tokenizer, pixel_values, question, generation_config, num_patches_list=...)`
answers. A labelled clip's label goes before its frames; frames are numbered per clip.

Use: `--model internvideo2_5_8b` (downloads the checkpoint and runs its code: pass
`trust_remote_code=true` to confirm you accept that) or `pretrained=/path/to/local/copy`. Frames: 160, the
whole CycliST video as the CycliST paper gave it; InternVideo2.5's demo samples 128 (`num_segments`).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np

from harness.api import (
    Capabilities,
    ImagePart,
    Model,
    ModelArgsError,
    Request,
    Response,
    TextPart,
    VideoPart,
    checkpoint_kwargs,
    label_text,
)
from harness_models.args import as_bool, as_int, as_str
from harness_models.hf.adapter import load_error, require
from harness_models.hf.generation import cut_at_stop, plan_generation

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
INPUT_SIZE = 448
_ARGS = ("pretrained", "revision", "dtype", "device", "max_frames", "trust_remote_code", "max_new_tokens")


def frame_tiles(frames: np.ndarray, size: int = INPUT_SIZE) -> Any:
    """(T, 3, size, size) float tensor: each frame resized (bicubic) and normalised, one tile per frame."""
    import torch
    import torch.nn.functional as F

    video = torch.from_numpy(np.ascontiguousarray(frames)).permute(0, 3, 1, 2).float() / 255.0
    video = F.interpolate(video, size=(size, size), mode="bicubic", align_corners=False).clamp(0.0, 1.0)
    mean = torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1)
    std = torch.tensor(IMAGENET_STD).view(1, 3, 1, 1)
    return (video - mean) / std


def build_prompt(request: Request) -> tuple[str, list[np.ndarray]]:
    """(question text with `Frame{i}: <image>` lines in place of each clip, frames in order)."""
    pieces: list[str] = []
    frames: list[np.ndarray] = []
    for message in request.messages:
        for part in message.content:
            if isinstance(part, TextPart):
                pieces.append(part.text)
            elif isinstance(part, VideoPart):
                if part.frames is None:
                    raise ValueError(
                        f"request doc_id={request.doc_id!r}: video {part.ref.path} has no decoded frames"
                    )
                if part.label:
                    pieces.append(label_text(part.label))
                pieces.append("".join(f"Frame{i + 1}: <image>\n" for i in range(len(part.frames))))
                frames.extend(np.asarray(part.frames))
            elif isinstance(part, ImagePart):
                if part.label:
                    pieces.append(label_text(part.label))
                pieces.append("<image>\n")
                frames.append(np.asarray(part.image))
    return "".join(pieces), frames


class InternVideo25(Model):
    """`--model internvideo2_5_8b [--model_args pretrained=...,trust_remote_code=true,max_frames=...]`."""

    name: ClassVar[str] = "internvideo2_5_8b"
    lmms_eval_model: ClassVar[str] = "internvideo2_5"
    version: ClassVar[str] = "1"
    default_pretrained: ClassVar[str] = "OpenGVLab/InternVideo2_5_Chat_8B"
    recipe: ClassVar[str] = "internvideo2_5_demo"
    accepted_args: ClassVar[tuple[str, ...]] = _ARGS

    def __init__(self, **model_args: Any) -> None:
        super().__init__(**model_args)
        self.pretrained = as_str(model_args.get("pretrained")) or self.default_pretrained
        self.revision = as_str(model_args.get("revision"))
        self.dtype = as_str(model_args.get("dtype")) or "bfloat16"
        self.device = as_str(model_args.get("device")) or ("cuda" if _cuda() else "cpu")
        self.max_frames = as_int(model_args.get("max_frames", 160), "max_frames", self.name, 1)
        if not as_bool(model_args.get("trust_remote_code", False), "trust_remote_code", self.name):
            raise ModelArgsError(
                f"model '{self.name}' runs the checkpoint's own code: pass trust_remote_code=true in --model_args "
                f"to accept running the code in '{self.pretrained}'"
            )
        max_new = as_int(model_args.get("max_new_tokens", 1024), "max_new_tokens", self.name, 1)
        self.gen_defaults = {"max_new_tokens": max_new}
        self.capabilities = Capabilities(
            video=True, multi_video=True, images=True, max_frames=self.max_frames
        )
        self._load()

    def _load(self) -> None:
        require("torch", "transformers")
        fetch = checkpoint_kwargs(self.pretrained, self.revision, self.name)  # fails fast, before torch
        import torch
        from transformers import AutoModel, AutoTokenizer

        common = {"trust_remote_code": True, "revision": self.revision, **fetch}
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.pretrained, **common)
            model = AutoModel.from_pretrained(self.pretrained, **common)
        except OSError as err:
            raise load_error(self.name, self.pretrained, err) from err
        self.torch_dtype = getattr(torch, self.dtype)
        self.model = model.to(self.torch_dtype).to(self.device).eval()

    def identity(self) -> dict[str, Any]:
        """Name, version and every arg that changes answers."""
        args = {
            "pretrained": self.pretrained,
            "revision": self.revision,
            "dtype": self.dtype,
            "max_frames": self.max_frames,
            "gen_defaults": self.gen_defaults,
            "recipe": self.recipe,
        }
        return {"name": self.name, "version": self.version, "args": args}

    def generate(self, requests: list[Request]) -> list[Response]:
        """One `model.chat` call per request (the remote code's interface), greedy unless asked otherwise."""
        import torch

        out = []
        for request in requests:
            plan = plan_generation(request.gen_kwargs, self.gen_defaults)
            question, frames = build_prompt(request)
            pixel_values = frame_tiles(np.stack(frames)).to(self.torch_dtype).to(self.device)
            config = dict(plan.kwargs)
            if plan.seed is not None:
                torch.manual_seed(int(plan.seed))
            with torch.inference_mode():
                text = self.model.chat(
                    self.tokenizer, pixel_values, question, config, num_patches_list=[1] * len(frames)
                )
            text = text[0] if isinstance(text, tuple) else text
            out.append(
                Response(text=cut_at_stop(str(text), plan.stop).strip(), usage={"frames": len(frames)})
            )
        return out

    def close(self) -> None:
        """Drop the model."""
        self.model = None


def _cuda() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available()) and os.environ.get("CUDA_VISIBLE_DEVICES", "x") != ""
    except ImportError:
        return False


__all__ = ["InternVideo25", "build_prompt", "frame_tiles"]
