"""The optional model-based suitability filter: ask any model with the harness.contract.model.Model interface
whether a video suits a missing-middle task, and keep it only on a clear "yes".

The paper screens videos with a language model over captions; here the model sees the video itself
(uniformly sampled frames), so any registered video model can serve. Unparsable answers count as a fail.
The model is named as on the evaluation command line (a registered model name, found through the public
registry) or by a 'package.module:Class' reference, with `k=v,...` model args.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from harness.api import (
    ConfigError,
    FrameSpec,
    Message,
    Model,
    Request,
    TextPart,
    UnknownNameError,
    VideoPart,
    VideoRef,
    parse_kv,
    registry,
    resolve_reference,
)
from harness.frames import load_clip

SUITABILITY_PROMPT = (
    "This video will be used for a temporal cloze test: its middle part is removed and a viewer must pick "
    "the true middle from clips of the same video. That needs a continuous shot with visible action that "
    "develops over time (no static scene, no slideshow, no cuts between unrelated scenes). "
    "Is this video suitable? Answer with one word: yes or no."
)
SUITABILITY_FRAMES = FrameSpec(strategy="uniform", count=16, max_side=448)


def parse_yes_no(text: str) -> bool | None:
    """True for an answer starting with yes, False for no, None when neither."""
    m = re.match(r"\W*(yes|no)\b", text.strip().lower())
    if not m:
        return None
    return m.group(1) == "yes"


def ask_suitability(
    model: Model, path: Path, stem: str, spec: FrameSpec = SUITABILITY_FRAMES
) -> tuple[bool, str]:
    """Decode `spec` frames of the video, ask `model`, return (suitable, raw answer)."""

    ref = VideoRef(path=str(path), label="video")
    clip = load_clip(ref, spec)
    part = VideoPart(
        ref=ref,
        frames=clip.frames,
        indices=list(clip.indices),
        timestamps=list(clip.timestamps),
        label="video",
    )
    request = Request(
        messages=[Message(role="user", content=[part, TextPart(SUITABILITY_PROMPT)])],
        gen_kwargs={"max_new_tokens": 8, "temperature": 0.0},
        frame_spec=spec,
        task="tempcloze_build_suitability",
        doc_id=stem,
    )
    (response,) = model.generate([request])
    verdict = parse_yes_no(response.text)
    return bool(verdict), response.text


def load_suitability_model(name: str, model_args: str | dict | None = None) -> Model:
    """The `--suitability-model` model: a registered model name (any installed plugin's, e.g. one of
    `python -m harness ls models`) or a 'package.module:Class' reference; `model_args` is a dict or the
    `--suitability-model-args` text (`k=v,k2=v2` or a JSON object, parsed as the CLI's --model_args)."""

    args = (
        dict(model_args) if isinstance(model_args, dict) else parse_kv(model_args, "--suitability-model-args")
    )
    if ":" in name:
        return load_model_reference(name, **args)
    try:
        factory = registry().get("model", name).load()
    except UnknownNameError as err:
        raise ConfigError(
            f"--suitability-model: {err}; or give a 'package.module:Class' Model reference"
        ) from err
    try:
        model = factory(**args)
    except TypeError as err:
        raise ConfigError(
            f"--suitability-model '{name}': its model args {sorted(args)} do not fit ({err}); "
            "fix --suitability-model-args"
        ) from err
    if not callable(getattr(model, "generate", None)):
        raise ConfigError(f"--suitability-model '{name}' did not give an object with generate(requests)")
    return model


def load_model_reference(ref: str, **model_args: Any) -> Model:
    """Instantiate a 'package.module:Class' model reference (the CLI's --suitability-model)."""

    factory = resolve_reference(ref, what=f"--suitability-model '{ref}'")
    model = factory(**model_args)
    if not callable(getattr(model, "generate", None)):
        raise ConfigError(f"--suitability-model '{ref}' did not give an object with generate(requests)")
    return model
