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
