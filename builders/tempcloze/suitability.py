"""The optional model-based suitability filter: ask any model with the harness.model.Model interface
whether a video suits a missing-middle task, and keep it only on a clear "yes".

The paper screens videos with a language model over captions; here the model sees the video itself
(uniformly sampled frames), so any registered video model can serve. Unparsable answers count as a fail.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from harness.frames.spec import FrameSpec
from harness.media import VideoRef
from harness.model import Model
from harness.requests import Message, Request, TextPart, VideoPart

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
    from harness.frames import load_clip

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


def load_model_reference(ref: str, **model_args: Any) -> Model:
    """Instantiate a 'package.module:Class' model reference (the CLI's --suitability-model)."""
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr:
        raise ValueError(f"--suitability-model '{ref}' must look like 'package.module:ClassName'")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"--suitability-model '{ref}': cannot import it ({err})") from err
    model = obj(**model_args)
    if not callable(getattr(model, "generate", None)):
        raise ValueError(f"--suitability-model '{ref}' did not give an object with generate(requests)")
    return model
