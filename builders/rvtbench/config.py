"""Build options of the RVTBench builder: everything that changes the output, recorded in the manifest. The
parts' option flags (--segmenter-args, --depth-args) are parsed as the core's --model_args (`harness.api.parse_kv`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.api import MAX_FRAME_COUNT

#: flags that take a whole number, with (lowest, highest or None), checked before anything is built; frames with
#: ground truth follow the frame spec's own bound, and a resize below 8 px is none (FrameSpec.max_side)
INTEGER_FLAGS = {
    "keyframe_interval": (1, None),
    "downsample": (1, None),
    "eval_frames": (1, MAX_FRAME_COUNT),
    "objects_per_video": (1, None),
    "num_videos": (1, None),
    "workers": (1, None),
    "max_side": (8, None),
}


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
