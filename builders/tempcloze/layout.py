"""The TempCloze release layout: clip names, dimensions and the files a dataset folder holds.

`choices/{stem}/before.mp4, GT.mp4, after.mp4, S/Rand1..3.mp4, A/Early|Late|Wide.mp4,
C/Reverse|Shuffle|Loop.mp4`; the Progression dimension is stored under `C/` as in the public release.
"""

from __future__ import annotations

CHOICES_DIR = "choices"
MANIFEST_FILE = "manifest.json"
MIXED_FILE = "mixed_ids.json"
HARD_FILE = "subset_ids.json"
CLIPS_FILE = "clips.json"
SOURCES_DIR = "sources"

CONTEXT_CLIPS = ("before", "GT", "after")

# Dimension key (as in mixed_ids.json) -> distractor clip names (relative path without ".mp4").
DIMENSIONS: dict[str, tuple[str, str, str]] = {
    "S": ("S/Rand1", "S/Rand2", "S/Rand3"),
    "A": ("A/Early", "A/Late", "A/Wide"),
    "P": ("C/Reverse", "C/Shuffle", "C/Loop"),
}
DIMENSION_NAMES = {"S": "Semantic", "A": "Alignment", "P": "Progression"}

ALL_CLIPS: tuple[str, ...] = CONTEXT_CLIPS + tuple(n for names in DIMENSIONS.values() for n in names)


def clip_file(name: str) -> str:
    """The release's relative file path of a clip name, e.g. 'C/Loop' -> 'C/Loop.mp4'."""
    return f"{name}.mp4"
