"""Entry-point module: registers the RVTBench report renderer (category x level tables, J&F / cIoU plots)."""

from harness.api import hookimpl


@hookimpl
def register_reports(register):
    register(
        "rvtbench",
        "tasks.rvtbench.report_sections:rvtbench_sections",
        "RVTBench Tables 2-4 (category x level) with J&F and cIoU by level",
    )
