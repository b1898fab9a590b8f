"""Entry-point module: registers the TempCloze report renderer (per-dimension, joint, error sources)."""

from harness.api import hookimpl


@hookimpl
def register_reports(register):
    register(
        "tempcloze",
        "tasks.tempcloze.report_sections:tempcloze_sections",
        "TempCloze per-dimension, joint, error-source, reordering and pass@k tables with bars",
    )
