"""Registers the `hf` adapter and its presets (models/hf/preset_table.py) by "module:attr" strings, so nothing
heavy imports here."""

from __future__ import annotations

from harness.hookspecs import hookimpl
from harness_models.hf.preset_table import PRESETS, REMOTE


@hookimpl
def register_models(register):
    """Register `hf` and every named preset (lazy references)."""
    register("hf", "harness_models.hf.adapter:HFModel", description="any transformers video/image-text model")
    for preset in PRESETS:
        register(preset.name, f"harness_models.hf.presets:{preset.name}", description=preset.description)
    for name, (ref, description) in REMOTE.items():
        register(name, ref, description=description)
