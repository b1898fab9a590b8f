"""Plugin entry point of the RVTBench tasks: registers the folder of task YAMLs (no heavy imports)."""

from harness.api import hookimpl


@hookimpl
def register_tasks(register):
    """tasks/rvtbench/configs: rvtbench_seg, rvtbench_grounding, rvtbench_vqa, rvtbench_summary, group rvtbench."""
    register("configs")
