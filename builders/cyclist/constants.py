"""The release's fixed vocabularies (meshes, materials, CLEVR colours, sizes, cycle types, relations, tiers),
read from the one definition the task reads too: tasks/cyclist/vocabulary.json (a data file, so the builder
imports no task; docs/benchmarks/cyclist.md, "One vocabulary"), found where the package `harness_tasks` is
installed without importing it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

VOCABULARY_FILE = Path(importlib.util.find_spec("harness_tasks").origin).parent / "cyclist" / "vocabulary.json"
_VOCABULARY = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))

COLORS: tuple[str, ...] = tuple(_VOCABULARY["colors"])
# The eight CLEVR colours as the release's assets/colors.json lists them (0-255).
COLORS_255: dict[str, tuple[int, ...]] = {k: tuple(v) for k, v in _VOCABULARY["colors"].items()}
SIZES: dict[str, float] = dict(_VOCABULARY["sizes"])  # name -> scale, as the release's assets/sizes.json
SIZE_NAMES: tuple[str, ...] = tuple(SIZES)
SHAPES: tuple[str, ...] = tuple(_VOCABULARY["shapes"])
MATERIAL_NAMES: tuple[str, ...] = tuple(_VOCABULARY["materials"])
MATERIAL_ALIASES: dict[str, str] = {**{m: m for m in MATERIAL_NAMES}, **_VOCABULARY["material_aliases"]}
# The release's spelling of meshes and materials: capitalised, in the order of its asset files.
MESHES: tuple[str, ...] = tuple(sorted(s.capitalize() for s in SHAPES))
MATERIALS: tuple[str, ...] = tuple(sorted(m.capitalize() for m in MATERIAL_NAMES))
DIRECTIONS: tuple[str, ...] = tuple(_VOCABULARY["directions"])
RELATIONS: tuple[str, ...] = tuple(_VOCABULARY["relations"])
MOTION_CYCLES: tuple[str, ...] = tuple(_VOCABULARY["motion_cycles"])  # never two on one object
# The order in which the builder enumerates cycle-type combinations (it fixes which scene a seed and index
# give, so it is the builder's own fact); the types themselves are the vocabulary's.
CYCLE_TYPES: tuple[str, ...] = ("linear", "orbit", "resize", "recolor", "rotate")
if sorted(CYCLE_TYPES) != sorted(_VOCABULARY["cycles"]):
    raise ImportError(
        f"builders/cyclist/constants.py: CYCLE_TYPES does not list the cycles of {VOCABULARY_FILE}"
    )
# tier code -> (the release's folder, the paper's name)
TIER_NAMES: dict[str, tuple[str, str]] = {code: (f, n) for code, (f, n) in _VOCABULARY["tiers"].items()}


def release_colors() -> dict[str, list[float]]:
    """The `colors` field of a release scene: RGBA in [0, 1] per colour name."""
    return {name: [round(v / 255.0, 6) for v in rgb] + [1.0] for name, rgb in COLORS_255.items()}
