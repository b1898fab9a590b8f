"""Plugin entry point of the RVTBench builder: the `rvtbench` command and its swappable parts (lazy)."""

from __future__ import annotations

from harness.hookspecs import hookimpl

PARTS = {
    "rvtbench.segmenter.sam2": (
        "harness_builders.rvtbench.segment_sam2:Sam2Segmenter",
        "SAM 2 video predictor (transformers)",
    ),
    "rvtbench.depth.depth_anything": (
        "harness_builders.rvtbench.depth_anything:DepthAnything",
        "Depth Anything V2 (transformers)",
    ),
    "rvtbench.describer.vlm": (
        "harness_builders.rvtbench.describers:VLMDescriber",
        "descriptions from a registered VLM",
    ),
    "rvtbench.describer.opencv": (
        "harness_builders.rvtbench.describers:OpenCVDescriber",
        "offline descriptions from colour/size",
    ),
    "rvtbench.selector.rules": (
        "harness_builders.rvtbench.selection:RuleSelector",
        "documented selection and task-type rules",
    ),
    "rvtbench.selector.llm": (
        "harness_builders.rvtbench.selection:LLMSelector",
        "selection and task types by a registered LLM",
    ),
    "rvtbench.query.templates": (
        "harness_builders.rvtbench.queries:TemplateQueries",
        "queries and answers from templates",
    ),
    "rvtbench.query.llm": ("harness_builders.rvtbench.queries:LLMQueries", "queries and answers by a registered LLM"),
    "rvtbench.box_to_mask.sam2": (
        "harness_builders.rvtbench.box_to_mask_sam2:Sam2BoxToMask",
        "masks from box prompts, SAM 2 image model (transformers); used by rvtbench_seg_boxes",
    ),
}


@hookimpl
def register_builders(register):
    """`rvtbench` and its parts (names with a dot are parts, not commands)."""
    register(
        "rvtbench",
        "harness_builders.rvtbench.commands:RvtbenchBuilder",
        "RVTBench samples from videos via digital twins, reasoning trees and queries (paper 002)",
    )
    for name, (ref, description) in PARTS.items():
        register(name, ref, description)
