"""Entry-point module of the test plugin: registers its task folder."""

import pluggy

hookimpl = pluggy.HookimplMarker("harness")


@hookimpl
def register_tasks(register):
    register("tasks")


@hookimpl
def register_models(register):
    register("counting", "harness_colors.models:CountingModel", "test model: oracle answers, logged calls")


@hookimpl
def register_commands(register):
    register("colors-data", "harness_colors.commands:main", "write the colors test dataset", usage="colors-data OUT")
