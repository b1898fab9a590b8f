"""Registers the `openai` adapter and the papers' hosted models (models/openai_api/preset_table.py) by
"module:attr" strings (nothing imported until it is used)."""

from __future__ import annotations

from harness.hookspecs import hookimpl
from harness_models.openai_api.preset_table import PRESETS


@hookimpl
def register_models(register):
    """Register `openai`: any OpenAI-compatible chat endpoint (vLLM, SGLang, hosted APIs), and its presets."""
    register(
        "openai",
        "harness_models.openai_api.adapter:OpenAIModel",
        description="OpenAI-compatible chat endpoint (vLLM, SGLang, hosted): frames as image parts",
    )
    for preset in PRESETS:
        register(preset.name, f"harness_models.openai_api.presets:{preset.name}", description=preset.description)
