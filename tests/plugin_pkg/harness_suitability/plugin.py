"""Entry-point module of the suitability test plugin: registers one model, by reference (lazy import)."""

import pluggy

hookimpl = pluggy.HookimplMarker("harness")


@hookimpl
def register_models(register):
    register(
        "scripted_suitability",
        "harness_suitability.models:ScriptedSuitability",
        "test model: says a video is suitable unless its stem is listed in `reject`",
    )
