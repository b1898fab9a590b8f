"""`python -m harness diagnose NAME DIR ...`: check a built dataset folder with the builder part registered as
`NAME.diagnose` (or `diagnose-NAME`)."""

from __future__ import annotations

from harness.cli.build_cmd import list_builders, run_builder
from harness.plugins.loading import load_plugins


def main(argv: list[str]) -> int:
    """Run the diagnose part of the builder named by the first word."""
    state = load_plugins()
    if not argv or argv[0] in ("-h", "--help"):
        rows = [
            (e.name.removesuffix(".diagnose").removeprefix("diagnose-"), e.description)
            for e in state.registry.entries("builder")
            if e.name.endswith(".diagnose") or e.name.startswith("diagnose-")
        ]
        return list_builders("diagnose", rows, asked=bool(argv))
    part = f"{argv[0]}.diagnose"
    if not state.registry.has("builder", part):
        part = f"diagnose-{argv[0]}"
    return run_builder("diagnose", argv[0], state.registry.get("builder", part), argv[1:])
