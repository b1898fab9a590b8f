"""The `hf` presets as classes, one per row of models/hf/preset_table.py: `PRESETS[name](**model_args)`.

Every preset takes the same model_args as `hf` (pretrained=... points it at a local copy of the weights;
max_frames=... changes the budget). The frame budget is a cap: the harness lowers a task's frame spec to
it, never raises it. All presets decode greedily unless a task asks for sampling (the CycliST and
TempCloze protocols are greedy, pass@k tasks set their own temperature). The registry refers to a preset
as "harness_models.hf.presets:<name>" (this module's attribute of that name is its class).
"""

from __future__ import annotations

from harness_models.hf import preset_table
from harness_models.hf.adapter import HFModel
from harness_models.hf.preset_table import DTYPE, FAMILIES, Preset
from harness_models.preset_classes import preset_by_name, preset_subclass


def preset_class(preset: Preset) -> type[HFModel]:
    """The `hf` subclass of one table row: its checkpoint, family recipe, frame budget and decoding."""
    family = FAMILIES[preset.family]
    return preset_subclass(
        HFModel,
        preset.name,
        __name__,
        f"{preset.description}. {family.source} {preset.note}".strip(),
        default_pretrained=preset.checkpoint,
        default_dtype=DTYPE,
        default_max_frames=family.max_frames,
        default_gen_kwargs={"max_new_tokens": preset.max_new_tokens},
        expected_model_types=(family.model_type,),
        default_recipe=family.recipe,
        lmms_eval_model=family.lmms_eval_model,
    )


PRESETS: dict[str, type[HFModel]] = {preset.name: preset_class(preset) for preset in preset_table.PRESETS}


def __getattr__(name: str) -> type[HFModel]:
    """A preset's class by its name, as the registry's "harness_models.hf.presets:<name>" references ask for it."""
    return preset_by_name(PRESETS, __name__, name)
