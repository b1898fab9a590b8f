"""Entry point of the TempCloze task plugin: registers the task YAML folder (no heavy imports here)."""

from harness.api import hookimpl


@hookimpl
def register_tasks(register):
    """The tasks under tasks/tempcloze/configs."""
    register("configs")
