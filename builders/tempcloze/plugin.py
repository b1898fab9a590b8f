"""Plugin entry point of the TempCloze builder: registers its commands (imports stay lazy)."""

from __future__ import annotations

from harness.hookspecs import hookimpl


@hookimpl
def register_builders(register):
    """`tempcloze`, `tempcloze-hard` and the `tempcloze.diagnose` part."""
    register(
        "tempcloze",
        "harness_builders.tempcloze.commands:TempClozeBuilder",
        description="TempCloze items from a folder of videos (files or --virtual segment lists)",
    )
    register(
        "tempcloze-hard",
        "harness_builders.tempcloze.commands:TempClozeHardBuilder",
        description="TempCloze-Hard subset from results or samples files",
    )
    register(
        "tempcloze.diagnose",
        "harness_builders.tempcloze.commands:TempClozeDiagnoseBuilder",
        description="TempCloze diagnostics (edge-frame check, edge baseline); run by `harness diagnose tempcloze DIR`",
    )
