"""Entry point of the TempCloze baseline models (registered by reference: nothing heavy is imported)."""

from harness.api import hookimpl


@hookimpl
def register_models(register):
    """`tempcloze_edge` and `tempcloze_single_frame`: non-LLM baselines that read frames and labels only."""
    register(
        "tempcloze_edge",
        "tasks.tempcloze.baselines.edge:EdgeModel",
        "TempCloze baseline: the candidate whose boundary frames best continue the context",
    )
    register(
        "tempcloze_single_frame",
        "tasks.tempcloze.baselines.single_frame:SingleFrameModel",
        "TempCloze baseline: one (middle) frame per clip, the candidate closest to the context",
    )
