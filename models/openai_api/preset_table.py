"""The papers' proprietary models as one data table of presets over the `openai` adapter (hosted APIs).

Each row fills in the served model name, the endpoint, the environment variable that holds the key and the
frame budget the paper used (None: the paper states none, so the task's frame spec decides); any
`--model_args` given still override them. Adding a preset is one row here. Importing this module imports
nothing heavy, so the plugin registers every preset from it; docs/models.md's table of hosted presets is
checked against this one (tests/test_models_preset_table.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

GEMINI_OPENAI_URL = "https://generativelanguage.googleapis.com/v1beta/openai"
OPENAI_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class HostedPreset:
    """A paper's hosted model: served name, endpoint, key variable, frame budget, `ls` description."""

    name: str
    model: str
    base_url: str
    api_key_env: str
    max_frames: Optional[int]
    description: str

    def model_args(self) -> dict[str, Any]:
        """The `openai` model_args this preset fills in (max_frames only where the paper states one)."""
        args: dict[str, Any] = {
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
        }
        return args if self.max_frames is None else {**args, "max_frames": self.max_frames}


_GEMINI = {"base_url": GEMINI_OPENAI_URL, "api_key_env": "GEMINI_API_KEY"}
_OPENAI = {"base_url": OPENAI_URL, "api_key_env": "OPENAI_API_KEY"}

PRESETS: tuple[HostedPreset, ...] = (
    HostedPreset(
        "gemini_2_0_flash",
        "gemini-2.0-flash",
        **_GEMINI,
        max_frames=160,
        description="Gemini 2.0 Flash (OpenAI-compatible endpoint), 160 frames as in CycliST",
    ),
    HostedPreset(
        "gemini_2_5_flash",
        "gemini-2.5-flash",
        **_GEMINI,
        max_frames=160,
        description="Gemini 2.5 Flash (OpenAI-compatible endpoint), 160 frames as in CycliST",
    ),
    HostedPreset(
        "gemini_2_0_flash_lite",
        "gemini-2.0-flash-lite",
        **_GEMINI,
        max_frames=None,
        description="Gemini 2.0 Flash-Lite, as in RVTBench",
    ),
    HostedPreset(
        "gpt_o4_mini", "o4-mini", **_OPENAI, max_frames=None, description="OpenAI o4-mini, as in RVTBench"
    ),
    HostedPreset("gpt_5_4", "gpt-5.4", **_OPENAI, max_frames=None, description="GPT-5.4, as in TempCloze"),
)
