"""Build options of the RVTBench builder: everything that changes the output, recorded in the manifest. The
parts' option flags (--segmenter-args, --depth-args) are parsed as the core's --model_args (`harness.api.parse_kv`)."""

from __future__ import annotations

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
