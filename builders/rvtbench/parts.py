"""Pipeline parts by name: every stage (segmenter, depth, describer, selector, query generator) is swappable.

A part name is either a name registered with the harness (`register_builders`, e.g. "rvtbench.depth.depth_anything"
or a model from `register_models` for describers and LLMs) or a "package.module:Factory" reference. Both are
reached through the core's public API (`harness.api.registry`, `harness.api.resolve_reference`), as any plugin
reaches another's parts.
"""

from __future__ import annotations

from typing import Any

from harness.api import (  # builders reach models and parts through the public registry
    registry,
    resolve_reference,
)

PART_KINDS = ("segmenter", "depth", "describer", "selector", "query", "box_to_mask")


def builder_part(name: str) -> Any:
    """The factory of the builder part registered as `name` (any builder plugin's, e.g. CycliST's
    `cyclist.renderer.raster`); the registry and the entry's import are each loaded once."""
    return registry().get("builder", name).load()


def part_name(kind: str, name: str) -> str:
    """The registered name of a part: 'sam2' with kind 'segmenter' -> 'rvtbench.segmenter.sam2'."""
    if ":" in name or name.startswith("rvtbench."):
        return name
    return f"rvtbench.{kind}.{name}"


def load_part(kind: str, name: str, **options: Any) -> Any:
    """Instantiate the part `name` of `kind` ('segmenter', 'depth', ...) with `options`.

    Short names are looked up as registered builder parts `rvtbench.<kind>.<name>`; "module:Factory"
    references are imported directly. Unknown names raise ValueError naming the flag and the choices.
    """
    if kind not in PART_KINDS:
        raise ValueError(f"unknown part kind '{kind}'; expected one of {', '.join(PART_KINDS)}")
    full = part_name(kind, name)
    if ":" in full:
        factory = resolve_reference(full, what=f"--{kind}")
    else:
        found = registry()
        if not found.has("builder", full):
            choices = [n for n in found.names("builder") if n.startswith(f"rvtbench.{kind}.")]
            raise ValueError(
                f"--{kind} {name}: no part registered as '{full}'; registered {kind} parts: "
                f"{', '.join(choices) or 'none'} (or pass a 'package.module:Factory' reference)"
            )
        factory = found.get("builder", full).load()
    return factory(**options)


def load_model(name: str, **model_args: Any) -> Any:
    """A harness model (VLM or LLM) by registered model name or "module:Class" reference."""
    if ":" in name:
        factory = resolve_reference(name, what="model")
    else:
        found = registry()
        if not found.has("model", name):
            raise ValueError(
                f"model '{name}' is not registered; see `python -m harness ls models` "
                "(or pass a 'package.module:Class' reference)"
            )
        factory = found.get("model", name).load()
    model = factory(**model_args)
    if not callable(getattr(model, "generate", None)):
        raise ValueError(f"model '{name}' did not give an object with generate(requests)")
    return model
