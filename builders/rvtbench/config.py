"""Build options of the RVTBench builder (everything that changes the output, recorded in the manifest) and
the `k=v,...` option text of the swappable parts' flags (--segmenter-args, --depth-args)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

#: flags that take a positive integer (checked before anything is built)
POSITIVE_FLAGS = ("keyframe_interval", "downsample", "eval_frames", "objects_per_video", "num_videos", "workers")


@dataclass
class BuildOptions:
    """Everything that changes the output (recorded in the manifest)."""

    seed: int = 0
    keyframe_interval: int = 4
    downsample: int = 4
    eval_frames: int = 8
    objects_per_video: int = 3
    assign: str = "rules"
    selector: str = "rules"
    query: str = "templates"
    parts: dict[str, str] = field(default_factory=dict)
    num_videos: int | None = None  # --num-videos: only the first N source videos


def part_options(text: str, flag: str) -> dict:
    """`k=v,k2=v2` -> {k: v}, values read as JSON where they parse (numbers, true/false), else strings."""
    out: dict = {}
    for item in filter(None, (t.strip() for t in (text or "").split(","))):
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{flag}: '{item}' is not of the form key=value")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw.strip()
    return out
