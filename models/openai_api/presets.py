"""The papers' proprietary models as named presets over the `openai` adapter (hosted OpenAI-compatible APIs).

Each preset fills in the served model name, the endpoint, the environment variable that holds the key and
the frame budget the paper used; any `--model_args` given still override them. The key is read from the
environment only (never from args, logs or cache keys), and a missing key fails up front, naming the
variable.

| preset | endpoint | frames |
| --- | --- | --- |
| gemini_2_0_flash, gemini_2_5_flash | Gemini's OpenAI-compatible endpoint | 160 (CycliST: the whole video) |
| gemini_2_0_flash_lite | same | none stated (RVTBench): the task's frame spec |
| gpt_o4_mini | api.openai.com | none stated (RVTBench): the task's frame spec |
| gpt_5_4 | api.openai.com | none stated (TempCloze): the task's frame spec |
"""

from __future__ import annotations

from typing import Any, ClassVar

from models.openai_api.adapter import OpenAIModel

GEMINI_OPENAI_URL = "https://generativelanguage.googleapis.com/v1beta/openai"
OPENAI_URL = "https://api.openai.com/v1"


class _HostedPreset(OpenAIModel):
    """An `openai` adapter with a paper's model, endpoint, key variable and frame budget filled in."""

    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, **model_args: Any) -> None:
        super().__init__(**{**self.defaults, **model_args})


class Gemini20Flash(_HostedPreset):
    """Gemini 2.0 Flash as in CycliST (the whole 160-frame video)."""

    name: ClassVar[str] = "gemini_2_0_flash"
    defaults: ClassVar[dict[str, Any]] = {
        "model": "gemini-2.0-flash",
        "base_url": GEMINI_OPENAI_URL,
        "api_key_env": "GEMINI_API_KEY",
        "max_frames": 160,
    }


class Gemini25Flash(_HostedPreset):
    """Gemini 2.5 Flash as in CycliST (the whole 160-frame video)."""

    name: ClassVar[str] = "gemini_2_5_flash"
    defaults: ClassVar[dict[str, Any]] = {**Gemini20Flash.defaults, "model": "gemini-2.5-flash"}


class Gemini20FlashLite(_HostedPreset):
    """Gemini 2.0 Flash-Lite as in RVTBench (no frame count stated: the task's frame spec decides)."""

    name: ClassVar[str] = "gemini_2_0_flash_lite"
    defaults: ClassVar[dict[str, Any]] = {
        "model": "gemini-2.0-flash-lite",
        "base_url": GEMINI_OPENAI_URL,
        "api_key_env": "GEMINI_API_KEY",
    }


class GptO4Mini(_HostedPreset):
    """OpenAI o4-mini as in RVTBench (no frame count stated: the task's frame spec decides)."""

    name: ClassVar[str] = "gpt_o4_mini"
    defaults: ClassVar[dict[str, Any]] = {
        "model": "o4-mini",
        "base_url": OPENAI_URL,
        "api_key_env": "OPENAI_API_KEY",
    }


class Gpt54(_HostedPreset):
    """GPT-5.4 as in TempCloze (no frame count stated: the task's frame spec decides)."""

    name: ClassVar[str] = "gpt_5_4"
    defaults: ClassVar[dict[str, Any]] = {
        "model": "gpt-5.4",
        "base_url": OPENAI_URL,
        "api_key_env": "OPENAI_API_KEY",
    }


HOSTED: dict[str, type[OpenAIModel]] = {
    cls.name: cls for cls in (Gemini20Flash, Gemini25Flash, Gemini20FlashLite, GptO4Mini, Gpt54)
}
