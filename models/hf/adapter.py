"""The `hf` adapter: any transformers image-text-to-text / video model, through its own processor.

The request's decoded frames go into the processor's chat template as video entries (never file paths:
transformers' own video loading needs torchcodec), prompts are left-padded into one batch, and
`generate` runs greedy unless the task asks for sampling. Heavy imports (torch, transformers) happen when
a model is built, never when the plugin registers.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
from collections import OrderedDict
from typing import Any, ClassVar, Optional

from harness.api import (
    Capabilities,
    Model,
    ModelArgsError,
    ModelLoadError,
    Request,
    Response,
    checkpoint_kwargs,
)
from harness_models.args import as_bool, as_int, as_str
from harness_models.hf import budget as budgets
from harness_models.hf import recipes
from harness_models.hf.conversation import to_conversation
from harness_models.hf.generation import GenerationPlan, cut_at_stop, plan_generation
from harness_models.hf.render import flatten, insert_after_videos, media_strings

log = logging.getLogger(__name__)

DTYPES = ("auto", "bfloat16", "float16", "float32")
_ARGS = (
    "pretrained",
    "revision",
    "dtype",
    "device_map",
    "attn_implementation",
    "max_frames",
    "trust_remote_code",
    "max_new_tokens",
    "recipe",
)
# Args that say where the model runs, not what it answers: kept out of identity() so that cache keys and
# results do not depend on the device layout or the number of ranks.
_PLACEMENT_ARGS = ("device_map",)


def require(*modules: str) -> None:
    """ModuleNotFoundError (which the runner turns into "install the hf extra") for a missing module, found
    without importing it: a missing extra is named before the checkpoint is looked for."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"No module named '{module}'", name=module)


def load_error(model: str, pretrained: str, err: OSError) -> ModelLoadError:
    """A checkpoint transformers could not read, as one line (exit 3) naming it, the cause and the fix."""
    offline = " (HF_HUB_OFFLINE=1 is set: only the HF cache is read)" if os.environ.get("HF_HUB_OFFLINE") else ""
    return ModelLoadError(
        f"model '{model}': cannot load checkpoint '{pretrained}'{offline}: {' '.join(str(err).split())}; "
        "pass --model_args pretrained=/path/to/folder"
    )


class RaggedClips(ValueError):
    """Clips of different frame counts that the model's processor cannot put in one batch."""

    reason = "ragged_clips"


class HFModel(Model):
    """Generic transformers adapter: `--model hf --model_args pretrained=PATH_OR_ID,dtype=bfloat16,...`.

    Args: pretrained (hub id or folder), revision, dtype (auto|bfloat16|float16|float32), device_map (auto,
    cpu, cuda:0, ...; under a data-parallel launch "auto" means this rank's GPU), attn_implementation
    (eager|sdpa|flash_attention_2), max_frames (frame budget the harness lowers the task's to),
    trust_remote_code, max_new_tokens (default when the task sets none), recipe (`authors`, the preset's
    inference recipe, or `none`; see models/hf/recipes.py).
    """

    name: ClassVar[str] = "hf"
    version: ClassVar[str] = "1"
    # Preset knobs (subclasses override).
    default_pretrained: ClassVar[Optional[str]] = None
    default_dtype: ClassVar[str] = "auto"
    default_max_frames: ClassVar[Optional[int]] = None
    default_gen_kwargs: ClassVar[dict[str, Any]] = {}
    multi_video: ClassVar[bool] = True
    expected_model_types: ClassVar[tuple[str, ...]] = ()
    default_recipe: ClassVar[str] = "none"
    accepted_args: ClassVar[Optional[tuple[str, ...]]] = _ARGS

    def __init__(self, **model_args: Any) -> None:
        super().__init__(**model_args)
        self.pretrained = as_str(model_args.get("pretrained")) or self.default_pretrained
        if not self.pretrained:
            raise ModelArgsError(
                f"model '{self.name}' needs pretrained=PATH_OR_HUB_ID in --model_args (a transformers checkpoint "
                "with a processor and chat template)"
            )
        self.revision = as_str(model_args.get("revision"))
        self.dtype = (as_str(model_args.get("dtype")) or self.default_dtype).lower()
        if self.dtype not in DTYPES:
            raise ModelArgsError(f"model '{self.name}': dtype={self.dtype!r} is not one of {', '.join(DTYPES)}")
        self.device_map = as_str(model_args.get("device_map")) or "auto"
        self.attn_implementation = as_str(model_args.get("attn_implementation"))
        self.max_frames = as_int(
            model_args.get("max_frames", self.default_max_frames), "max_frames", self.name, 1
        )
        self.trust_remote_code = as_bool(
            model_args.get("trust_remote_code", False), "trust_remote_code", self.name
        )
        self.gen_defaults = dict(self.default_gen_kwargs)
        max_new = as_int(model_args.get("max_new_tokens"), "max_new_tokens", self.name, 1)
        if max_new is not None:
            self.gen_defaults["max_new_tokens"] = max_new
        # read raw: as_str turns the word "none" into None, which here would mean "the default recipe"
        raw_recipe = model_args.get("recipe")
        self.recipe = recipes.resolve(
            str(raw_recipe) if raw_recipe is not None else None, self.default_recipe, self.name
        )
        self._load()
        self.capabilities = Capabilities(
            video=True, multi_video=self.multi_video, images=True, max_frames=self.max_frames
        )

    # ----------------------------------------------------------------- loading
    def _resolved_device_map(self) -> Any:
        """'auto' within a data-parallel rank means this rank's GPU (one replica per rank).

        When each rank was given its own group of GPUs (it sees fewer GPUs than there are local ranks),
        'auto' keeps its meaning and spreads the model over that group.
        """
        import torch

        world = int(os.environ.get("WORLD_SIZE", "1"))
        local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(world)))
        if self.device_map == "auto" and world > 1 and torch.cuda.is_available():
            if torch.cuda.device_count() >= local_world:
                return {"": int(os.environ.get("LOCAL_RANK", "0"))}
        return self.device_map

    def _load(self) -> None:
        # before the heavy imports: a checkpoint that cannot be fetched ends here, in seconds and one line
        require("torch", "transformers")
        fetch = checkpoint_kwargs(self.pretrained, self.revision, self.name)
        import torch
        from transformers import AutoConfig, AutoModelForImageTextToText, AutoProcessor

        common = {"trust_remote_code": self.trust_remote_code, "revision": self.revision, **fetch}
        try:
            config = AutoConfig.from_pretrained(self.pretrained, **common)
            self.processor = AutoProcessor.from_pretrained(self.pretrained, **common)
        except OSError as err:
            raise load_error(self.name, self.pretrained, err) from err
        model_type = getattr(config, "model_type", "?")
        if self.expected_model_types and model_type not in self.expected_model_types:
            raise ValueError(
                f"model '{self.name}' expects a {' or '.join(self.expected_model_types)} checkpoint but "
                f"'{self.pretrained}' is {model_type!r}; use --model hf for other architectures"
            )
        if getattr(self.processor, "chat_template", None) is None:
            raise ValueError(
                f"model '{self.name}': the processor of '{self.pretrained}' has no chat template; add "
                "chat_template.jinja to the checkpoint folder"
            )
        tokenizer = self.processor.tokenizer
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        kwargs: dict[str, Any] = {"dtype": self.dtype if self.dtype == "auto" else getattr(torch, self.dtype)}
        device_map = self._resolved_device_map()
        if device_map not in (None, "none"):
            kwargs["device_map"] = device_map
        if self.attn_implementation:
            kwargs["attn_implementation"] = self.attn_implementation
        try:
            self.model = AutoModelForImageTextToText.from_pretrained(self.pretrained, **common, **kwargs).eval()
        except OSError as err:
            raise load_error(self.name, self.pretrained, err) from err
        self.tokenizer = tokenizer
        self._input_device = self.model.get_input_embeddings().weight.device
        eos = self.model.generation_config.eos_token_id
        eos_ids = eos if isinstance(eos, (list, tuple)) else [eos]
        self._eos_ids = {int(e) for e in eos_ids if e is not None} | {int(tokenizer.eos_token_id)}
        self._pad_id = tokenizer.pad_token_id
        if self.model.generation_config.pad_token_id is None:
            self.model.generation_config.pad_token_id = self._pad_id
        self._media_strings = media_strings(self.processor)
        self._media_ids = {
            i
            for i in (
                getattr(self.processor, "video_token_id", None),
                getattr(self.processor, "image_token_id", None),
            )
            if i is not None
        }
        self._fit_budget(model_type, config)

    def _fit_budget(self, model_type: str, config: Any) -> None:
        """Lower the frame budget up front when the preset's frames would overflow the context."""
        self.budget = budgets.compute(model_type, config, self.processor, self.recipe.name)
        self.budget_lowered_from: Optional[int] = None
        fit = self.budget.frames_fit
        if fit is not None and (self.max_frames is None or self.max_frames > fit):
            log.warning(
                "model '%s': %s frames x %.1f visual tokens would overflow the %s-token context of '%s'; "
                "the frame budget is lowered to %d",
                self.name,
                self.max_frames if self.max_frames is not None else "unbounded",
                self.budget.tokens_per_frame,
                self.budget.context_length,
                self.pretrained,
                fit,
            )
            self.budget_lowered_from = self.max_frames
            self.max_frames = fit

    # ----------------------------------------------------------------- identity
    def identity(self) -> dict[str, Any]:
        """Name, version and every arg that changes answers (not where the model runs)."""
        args = {
            "pretrained": self.pretrained,
            "revision": self.revision,
            "dtype": self.dtype,
            "attn_implementation": self.attn_implementation,
            "max_frames": self.max_frames,
            "trust_remote_code": self.trust_remote_code,
            "gen_defaults": self.gen_defaults,
            "recipe": self.recipe.name,
            "budget": {**self.budget.as_dict(), "lowered_from": self.budget_lowered_from},
        }
        return {"name": self.name, "version": self.version, "args": args}

    # ----------------------------------------------------------------- generation
    def generate(self, requests: list[Request]) -> list[Response]:
        """Answer a batch: requests sharing generation kwargs run as one left-padded `generate` call."""
        groups: OrderedDict[str, list[int]] = OrderedDict()
        for i, request in enumerate(requests):
            # one group per clip layout: the recipe's processor kwargs depend on the number of clips (a per-clip
            # pixel budget), and LLaVA processors stack a batch's clips into one tensor (equal frame counts)
            clips = [len(p.frames) if p.frames is not None else 0 for p in recipes.videos_of(request)]
            key = json.dumps([request.gen_kwargs or {}, clips], sort_keys=True, default=str)
            groups.setdefault(key, []).append(i)
        responses: list[Optional[Response]] = [None] * len(requests)
        for indices in groups.values():
            batch = [requests[i] for i in indices]
            plan = plan_generation(batch[0].gen_kwargs, self.gen_defaults)
            for i, response in zip(indices, self._generate_batch(batch, plan), strict=True):
                responses[i] = response
        return [r for r in responses if r is not None]

    def encode(self, requests: list[Request]) -> Any:
        """The processor's model inputs for a batch (left-padded), on the model's input device.

        The recipe's texts go after each video, each media entry becomes the chat template's own
        placeholder text in place (models/hf/render.py), and the processor expands the placeholders.
        Each row's visual token count is kept in `inputs["visual_tokens"]` (a list, not a tensor)."""
        import torch

        prompts, videos, images, metadata = [], [], [], []
        n_videos = 0
        for request in requests:
            request = self.recipe.prepare(request)
            messages, video_meta = to_conversation(request)
            parts = recipes.videos_of(request)
            n_videos = max(n_videos, len(parts))
            messages = insert_after_videos(messages, [self.recipe.texts_after_video(p) for p in parts])
            metadata.extend(self.recipe.metadata(p, m) for p, m in zip(parts, video_meta, strict=True))
            flat, vids, imgs = flatten(messages, self._media_strings)
            videos.extend(vids)
            images.extend(imgs)
            prompts.append(
                self.processor.apply_chat_template(flat, tokenize=False, add_generation_prompt=True)
            )
        kwargs: dict[str, Any] = {"padding": True, "padding_side": "left", "return_tensors": "pt"}
        if videos:
            kwargs["videos"] = videos
            kwargs["video_metadata"] = metadata
            # as videos_kwargs: a top-level `size` would resize the images of the request too
            extra = self.recipe.processor_kwargs(self.budget.context_length, n_videos)
            if extra:
                kwargs["videos_kwargs"] = extra
        if images:
            kwargs["images"] = images
        try:
            inputs = self.processor(text=prompts, **kwargs)
        except ValueError as err:
            counts = sorted({len(v) for v in videos})
            if "pixel_values_videos" in str(err) and len(counts) > 1:
                raise RaggedClips(
                    f"model '{self.name}': the processor of '{self.pretrained}' stacks all clips of a batch into "
                    f"one tensor, but these clips hold {counts} frames; give the task's clips equal frame counts "
                    "(a frame spec with a count every clip reaches) or lower max_frames"
                ) from err
            raise
        visual = [sum(int((row == i).sum()) for i in self._media_ids) for row in inputs["input_ids"]]
        for request, length, vis in zip(
            requests, inputs["attention_mask"].sum(dim=1).tolist(), visual, strict=True
        ):
            where = f"model '{self.name}', request doc_id={request.doc_id!r} of task {request.task!r}"
            budgets.check_prompt(int(length), vis, self.budget.context_length, where)
        dtype = self.model.dtype
        moved: dict[str, Any] = {}
        for key, value in inputs.items():
            if isinstance(value, torch.Tensor):
                value = value.to(self._input_device)
                if key.startswith("pixel_values") and torch.is_floating_point(value):
                    value = value.to(dtype)
            moved[key] = value
        moved["visual_tokens"] = visual
        return moved

    def _generate_batch(self, requests: list[Request], plan: GenerationPlan) -> list[Response]:
        import torch

        inputs = self.encode(requests)
        visual = inputs.pop("visual_tokens")
        if plan.seed is not None:
            torch.manual_seed(int(plan.seed))
        with torch.inference_mode():
            output = self.model.generate(**inputs, **plan.kwargs)
        prompt_len = inputs["input_ids"].shape[1]
        new_tokens = output[:, prompt_len:]
        texts = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        completion = [self._completion_length(row) for row in new_tokens.tolist()]
        n = plan.num_samples
        responses = []
        for i in range(len(requests)):
            rows = range(i * n, (i + 1) * n)
            samples = [cut_at_stop(texts[r], plan.stop).strip() for r in rows]
            usage = {
                "prompt_tokens": int(prompt_tokens[i]),
                "completion_tokens": sum(completion[r] for r in rows),
                "visual_tokens": int(visual[i]),
            }
            structured = {"samples": samples} if n > 1 else None
            responses.append(Response(text=samples[0], structured=structured, usage=usage))
        return responses

    def _completion_length(self, row: list[int]) -> int:
        """Generated tokens up to and including the first end-of-sequence token."""
        for i, token in enumerate(row):
            if token in self._eos_ids:
                return i + 1
        return sum(1 for t in row if t != self._pad_id) if self._pad_id not in self._eos_ids else len(row)

    def close(self) -> None:
        """Drop the model and free accelerator memory."""
        import gc

        self.model = None
        gc.collect()
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except ImportError:
            pass
