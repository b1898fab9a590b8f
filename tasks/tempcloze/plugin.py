"""The TempCloze plugin's one entry point: its task YAMLs, baseline models, importer and report renderer,
all registered by reference (no heavy imports here)."""

from harness.api import hookimpl


@hookimpl
def register_tasks(register):
    """The tasks under tasks/tempcloze/configs."""
    register("configs")


@hookimpl
def register_models(register):
    """`tempcloze_edge` and `tempcloze_single_frame`: non-LLM baselines that read frames and labels only."""
    register(
        "tempcloze_edge",
        "harness_tasks.tempcloze.baselines.edge:EdgeModel",
        "TempCloze baseline: the candidate whose boundary frames best continue the context",
    )
    register(
        "tempcloze_single_frame",
        "harness_tasks.tempcloze.baselines.single_frame:SingleFrameModel",
        "TempCloze baseline: one (middle) frame per clip, the candidate closest to the context",
    )


@hookimpl
def register_importers(register):
    """`tempcloze-official`: the public repository's per-item outputs as samples (harness import)."""
    register(
        "tempcloze-official",
        "harness_tasks.tempcloze.importer:TempClozeOfficialImporter",
        "TempCloze: the public repository's eval_results/**/<model>.json per-item outputs",
    )


@hookimpl
def register_reports(register):
    """Per-dimension, joint, error-source, reordering and pass@k tables."""
    register(
        "tempcloze",
        "harness_tasks.tempcloze.report_sections:tempcloze_sections",
        "TempCloze per-dimension, joint, error-source, reordering and pass@k tables with bars",
    )
