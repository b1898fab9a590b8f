"""Plugin entry point of the CycliST builder: its commands and renderer parts (lazy string references)."""

from __future__ import annotations

from harness.hookspecs import hookimpl

#: --renderer NAME -> the renderer class (registered as the part `cyclist.renderer.NAME`)
RENDERERS = {
    "raster": "harness_builders.cyclist.render.raster:RasterRenderer",
    "blender": "harness_builders.cyclist.render.blender:BlenderRenderer",
}
RENDERER_DESCRIPTIONS = {"raster": "fast numpy CPU renderer", "blender": "Cycles via bpy"}
COMMANDS = {
    "cyclist": (
        "harness_builders.cyclist.commands:CyclistBuilder",
        "CycliST scenes with cycles, validation, raster/blender rendering, masks (paper 000)",
    ),
    "cyclist-questions": (
        "harness_builders.cyclist.commands:CyclistQuestionsBuilder",
        "CycliST questions (12 families, temporal quantifiers) from scene JSON files",
    ),
    "cyclist.diagnose": (
        "harness_builders.cyclist.commands:CyclistDiagnose",
        "re-execute a CycliST dataset's stored programs; run by `harness diagnose cyclist DIR`",
    ),
    "cyclist.scene_states": (
        "harness_builders.cyclist.state:frame_states",
        "per-frame object states of a CycliST scene JSON (what rvtbench --from-synthetic reads)",
    ),
}


@hookimpl
def register_builders(register) -> None:
    """`cyclist`, `cyclist-questions`, the `cyclist.diagnose` part, the renderers and the scene-state reader."""
    for name, (ref, description) in COMMANDS.items():
        register(name, ref, description)
    for name, ref in RENDERERS.items():
        register(f"cyclist.renderer.{name}", ref, RENDERER_DESCRIPTIONS[name])
