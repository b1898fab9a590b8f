"""Pipeline parts by name: every stage (segmenter, depth, describer, selector, query generator) is swappable.

A part name is either a name registered with the harness (`register_builders`, e.g. "rvtbench.depth.depth_anything"
or a model from `register_models` for describers and LLMs) or a "package.module:Factory" reference. The registry
is reached through the core's plugin loader, imported lazily so that importing this module stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from harness.api import registry  # builders reach models and parts through the public registry

PART_KINDS = ("segmenter", "depth", "describer", "selector", "query", "box_to_mask")


def _import_reference(ref: str, what: str) -> Any:
    module_name, _, attr = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for piece in attr.split("."):
            obj = getattr(obj, piece)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"{what} '{ref}': cannot import it ({err})") from err
    return obj


def _registry():
    return registry()


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
        factory = _import_reference(full, f"--{kind}")
    else:
        registry = _registry()
        if not registry.has("builder", full):
            choices = [n for n in registry.names("builder") if n.startswith(f"rvtbench.{kind}.")]
            raise ValueError(
                f"--{kind} {name}: no part registered as '{full}'; registered {kind} parts: "
                f"{', '.join(choices) or 'none'} (or pass a 'package.module:Factory' reference)"
            )
        factory = registry.get("builder", full).load()
    return factory(**options)


def load_model(name: str, **model_args: Any) -> Any:
    """A harness model (VLM or LLM) by registered model name or "module:Class" reference."""
    if ":" in name:
        factory = _import_reference(name, "model")
    else:
        registry = _registry()
        if not registry.has("model", name):
            raise ValueError(
                f"model '{name}' is not registered; see `python -m harness ls models` "
                "(or pass a 'package.module:Class' reference)"
            )
        factory = registry.get("model", name).load()
    model = factory(**model_args)
    if not callable(getattr(model, "generate", None)):
        raise ValueError(f"model '{name}' did not give an object with generate(requests)")
    return model
