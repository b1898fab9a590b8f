"""Entry-point module: registers the CycliST report renderer (paper Tables 4-12 and Fig. 8)."""

from harness.api import hookimpl


@hookimpl
def register_reports(register):
    register(
        "cyclist",
        "tasks.cyclist.report_sections:cyclist_sections",
        "CycliST Tables 4-12 and Fig. 8 (accuracy by tier with the OLS decline line)",
    )
