"""The hosted presets as classes, one per row of models/openai_api/preset_table.py: `HOSTED[name](**model_args)`.

The key is read from the environment only (never from args, logs or cache keys), and a missing key fails up
front, naming the variable. The registry refers to a preset as "harness_models.openai_api.presets:<name>" (this
module's attribute of that name is its class).
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness_models.openai_api import preset_table
from harness_models.openai_api.adapter import OpenAIModel
from harness_models.openai_api.preset_table import HostedPreset
from harness_models.preset_classes import preset_by_name, preset_subclass


class _HostedPreset(OpenAIModel):
    """An `openai` adapter with a paper's model, endpoint, key variable and frame budget filled in."""

    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, **model_args: Any) -> None:
        super().__init__(**{**self.defaults, **model_args})


def hosted_class(preset: HostedPreset) -> type[OpenAIModel]:
    """The `openai` subclass of one table row, its model_args filled in under the user's."""
    return preset_subclass(
        _HostedPreset, preset.name, __name__, f"{preset.description}.", defaults=preset.model_args()
    )


HOSTED: dict[str, type[OpenAIModel]] = {preset.name: hosted_class(preset) for preset in preset_table.PRESETS}


def __getattr__(name: str) -> type[OpenAIModel]:
    """A preset's class by its name, as the registry's "harness_models.openai_api.presets:<name>" references ask for it."""
    return preset_by_name(HOSTED, __name__, name)
