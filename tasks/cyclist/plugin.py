"""The CycliST plugin's one entry point: its task YAMLs and its report renderer (no heavy imports here)."""

from harness.api import hookimpl


@hookimpl
def register_tasks(register):
    """The CycliST tasks, per-family variants, caption tasks and groups (configs/*.yaml)."""
    register("configs")


@hookimpl
def register_reports(register):
    """The paper's Tables 4-12 and Fig. 8."""
    register(
        "cyclist",
        "harness_tasks.cyclist.report_sections:cyclist_sections",
        "CycliST Tables 4-12 and Fig. 8 (accuracy by tier with the OLS decline line)",
    )
