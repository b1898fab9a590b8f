"""A plugin whose registration hook raises (for the broken-plugin tests)."""

import pluggy

hookimpl = pluggy.HookimplMarker("harness")


@hookimpl
def register_models(register):
    raise ValueError("registration fails on purpose")
