"""Entry point of the CycliST task plugin: registers the task YAMLs in configs/ (no heavy imports)."""

from harness.api import hookimpl


@hookimpl
def register_tasks(register):
    """The CycliST tasks, per-family variants, caption tasks and groups (configs/*.yaml)."""
    register("configs")
