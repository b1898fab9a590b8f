"""Entry-point module of the RVTBench test plugin: scripted models and builder parts, registered by reference."""

import pluggy

hookimpl = pluggy.HookimplMarker("harness")


@hookimpl
def register_models(register):
    register(
        "rvt_shifted_boxes",
        "harness_rvtscripted.models:ShiftedBoxesModel",
        "test model: ground-truth boxes shifted by (dx, dy), as the grounding prompt's JSON text",
    )
    register(
        "rvt_json_llm",
        "harness_rvtscripted.models:ScriptedLLM",
        "test LLM: the JSON the builder stages ask for",
    )
    register("rvt_scripted_vlm", "harness_rvtscripted.models:ScriptedVLM", "test VLM: fixed descriptions")


@hookimpl
def register_builders(register):
    register(
        "rvtbench.segmenter.scripted",
        "harness_rvtscripted.parts:HueSegmenter",
        "test segmenter: one instance per saturated hue bin",
    )
    register(
        "rvtbench.depth.scripted", "harness_rvtscripted.parts:RowDepth", "test depth: lower rows are closer"
    )
    register(
        "rvtbench.box_to_mask.fill", "harness_rvtscripted.parts:FillBoxes", "test box-to-mask: the box itself"
    )
