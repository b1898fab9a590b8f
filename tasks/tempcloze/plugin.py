"""Entry point of the TempCloze task plugin: registers the task YAML folder (no heavy imports here)."""

from harness.api import hookimpl


@hookimpl
def register_tasks(register):
    """The tasks under tasks/tempcloze/configs."""
    register("configs")


@hookimpl
def register_importers(register):
    """`tempcloze-official`: the public repository's per-item outputs as samples (harness import)."""
    register(
        "tempcloze-official",
        "tasks.tempcloze.importer:TempClozeOfficialImporter",
        "TempCloze: the public repository's eval_results/**/<model>.json per-item outputs",
    )
