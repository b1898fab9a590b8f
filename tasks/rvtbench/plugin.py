"""The RVTBench plugin's one entry point: its task YAMLs and its report renderer (no heavy imports here)."""

from harness.api import hookimpl


@hookimpl
def register_tasks(register):
    """tasks/rvtbench/configs: rvtbench_seg, rvtbench_grounding, rvtbench_vqa, rvtbench_summary, group rvtbench."""
    register("configs")


@hookimpl
def register_reports(register):
    """The category x level tables and the J&F / cIoU by level plots."""
    register(
        "rvtbench",
        "harness_tasks.rvtbench.report_sections:rvtbench_sections",
        "RVTBench Tables 2-4 (category x level) with J&F and cIoU by level",
    )
