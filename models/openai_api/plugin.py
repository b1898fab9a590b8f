"""Registers the `openai` adapter by a "module:Class" string (nothing imported until it is used)."""

from __future__ import annotations

from harness.hookspecs import hookimpl


@hookimpl
def register_models(register):
    """Register `openai`: any OpenAI-compatible chat endpoint (vLLM, SGLang, hosted APIs)."""
    register(
        "openai",
        "models.openai_api.adapter:OpenAIModel",
        description="OpenAI-compatible chat endpoint (vLLM, SGLang, hosted): frames as image parts",
    )
    for name, (cls, description) in _HOSTED.items():
        register(name, f"models.openai_api.presets:{cls}", description=description)


# The papers' proprietary models (models/openai_api/presets.py), by "module:Class" strings.
_HOSTED = {
    "gemini_2_0_flash": (
        "Gemini20Flash",
        "Gemini 2.0 Flash (OpenAI-compatible endpoint), 160 frames as in CycliST",
    ),
    "gemini_2_5_flash": (
        "Gemini25Flash",
        "Gemini 2.5 Flash (OpenAI-compatible endpoint), 160 frames as in CycliST",
    ),
    "gemini_2_0_flash_lite": ("Gemini20FlashLite", "Gemini 2.0 Flash-Lite, as in RVTBench"),
    "gpt_o4_mini": ("GptO4Mini", "OpenAI o4-mini, as in RVTBench"),
    "gpt_5_4": ("Gpt54", "GPT-5.4, as in TempCloze"),
}
