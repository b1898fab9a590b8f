"""Instance, scene and video descriptions: from a registered VLM, or from OpenCV measurements offline.

`rvtbench.describer.vlm` sends images to any harness Model (`--describer-model NAME`); `rvtbench.describer.opencv`
needs no model: colour from the hue histogram, size from the area fraction, position from the centre, which
also fills the instance `attributes` the executor matches on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.api import ImagePart, Message, Request, TextPart

from .features import dominant_hue_name
from .parts import load_model


def _position_word(cx: float, width: int) -> str:
    return "left" if cx < width / 3 else ("right" if cx > 2 * width / 3 else "center")


class OpenCVDescriber:
    """`rvtbench.describer.opencv`: deterministic descriptions from measured colour, size and position."""

    name = "opencv"

    def __init__(self, **_: Any):
        pass

    def describe_instance(
        self, frame: np.ndarray, mask: np.ndarray, features: dict
    ) -> tuple[str, dict[str, str]]:
        """('a large red region', {'color': 'red', 'size': 'large', 'category': 'region'})."""
        frac = mask.sum() / mask.size
        size = "large" if frac > 0.05 else "small"
        color = dominant_hue_name(features["color_histogram"])
        attrs = {"color": color, "size": size, "category": "region"}
        return f"a {size} {color} region", attrs

    def describe_scene(self, frame: np.ndarray) -> str:
        """Brightness and colourfulness of the frame in words."""
        v = float(frame.mean()) / 255.0
        light = "bright" if v > 0.6 else ("dark" if v < 0.3 else "moderately lit")
        return f"A {light} scene."

    def describe_video(self, keyframes: list[np.ndarray], n_instances: int) -> str:
        """How many instances were tracked over how many key frames."""
        return f"A video in which {n_instances} object{'s' * (n_instances != 1)} are tracked over {len(keyframes)} key frames."


class VLMDescriber:
    """`rvtbench.describer.vlm`: a registered vision-language model describes crops, frames and key frames."""

    name = "vlm"
    INSTANCE = "Describe the highlighted object in one short noun phrase (attributes and category), e.g. 'a red sports car'."
    SCENE = "Summarize the environment, weather, crowd activity and identifiable location features in one concise paragraph."
    VIDEO = "These are key frames of one video, in order. Describe the whole video in a few sentences."

    def __init__(self, model: Any = None, model_name: str = "", **model_args: Any):
        if model is None:
            if not model_name:
                raise ValueError("--describer vlm needs --describer-model NAME (a registered VLM)")
            model = load_model(model_name, **model_args)
        self.model = model
        self.calls = 0

    def _ask(self, images: list[np.ndarray], text: str, doc_id: str) -> str:
        parts = [ImagePart(image=np.ascontiguousarray(im), label=f"image {k}") for k, im in enumerate(images)]
        request = Request(
            [Message("user", [*parts, TextPart(text)])],
            {"max_new_tokens": 96, "temperature": 0},
            None,
            "rvtbench_build",
            doc_id,
            {},
        )
        (response,) = self.model.generate([request])
        self.calls += 1
        return (response.text or "").strip()

    def describe_instance(
        self, frame: np.ndarray, mask: np.ndarray, features: dict
    ) -> tuple[str, dict[str, str]]:
        """The model's phrase for the masked object (background dimmed), and the phrase as category."""
        shown = frame.copy()
        shown[~mask] = (shown[~mask] * 0.25).astype(np.uint8)
        text = self._ask([shown], self.INSTANCE, "instance") or "an object"
        return text, {"category": text.lower().rstrip(".")}

    def describe_scene(self, frame: np.ndarray) -> str:
        """The model's scene paragraph."""
        return self._ask([frame], self.SCENE, "scene") or "A scene."

    def describe_video(self, keyframes: list[np.ndarray], n_instances: int) -> str:
        """The model's video description from the key frames (G_X in the paper)."""
        return self._ask(keyframes, self.VIDEO, "video") or "A video."
