"""Build parameters of the TempCloze builder (thresholds, gap rules, output mode), with their CLI flags.

Defaults follow the paper and the public filter: gap in the central 50 % lasting 20-40 % of the video,
motion threshold 1.0 px per frame at 256 px height, 3 gap tries, sharpness floor 30 (variance of the
Laplacian, here measured on the same 256 px frames).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, fields
from typing import Any, Optional

from harness.api import out_of_range

from .intervals import GapRules


@dataclass(frozen=True)
class BuildConfig:
    """Everything that changes what the builder writes (recorded in the manifest)."""

    seed: int = 0
    virtual: bool = False
    workers: int = 1
    min_duration: float = 4.0
    max_duration: Optional[float] = None
    min_sharpness: float = 30.0
    min_motion: float = 1.0
    flow_height: int = 256
    pairs_per_second: float = 2.0
    gap_tries: int = 3
    center_lo: float = 0.25
    center_hi: float = 0.75
    gap_min_frac: float = 0.2
    gap_max_frac: float = 0.4
    min_gap_frames: int = 6
    semantic: str = "paper"
    semantic_min_separation: float = 0.25
    mixed_size: Optional[int] = 300
    crf: int = 18
    sources: str = "link"
    source: Optional[str] = None
    suitability_model: Optional[str] = None
    suitability_model_args: Optional[str] = None

    def __post_init__(self) -> None:
        """Refuse values no build can use, naming the flag (before: a NaN threshold passed every video, a rate of
        0 was a ZeroDivisionError traceback, a negative --mixed-size a numpy error)."""
        for name, low, high in _BOUNDS:
            value = getattr(self, name)
            span = out_of_range(value, low, high) if value is not None else None
            if span is not None:
                hint = " (0: every video)" if name == "mixed_size" else ""
                raise ValueError(f"--{name.replace('_', '-')} {value}: must be a number {span}{hint}")
        if self.pairs_per_second <= 0:
            raise ValueError(f"--pairs-per-second {self.pairs_per_second}: must be above 0")
        if self.max_duration is not None and self.max_duration < self.min_duration:
            raise ValueError(
                f"--max-duration {self.max_duration}: below --min-duration {self.min_duration}, so no video fits"
            )

    def gap_rules(self) -> GapRules:
        """The interval rules these parameters select."""
        return GapRules(
            center_lo=self.center_lo,
            center_hi=self.center_hi,
            min_frac=self.gap_min_frac,
            max_frac=self.gap_max_frac,
            min_gap_frames=self.min_gap_frames,
            semantic=self.semantic,  # type: ignore[arg-type]
            semantic_min_separation=self.semantic_min_separation,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for the manifest."""
        return asdict(self)


#: (field, lowest, highest or None) of every numeric build parameter; its flag is `--` + the field, dashed
_BOUNDS = (
    ("workers", 1, None),
    ("min_duration", 0, None),
    ("max_duration", 0, None),
    ("min_sharpness", 0, None),
    ("min_motion", 0, None),
    ("flow_height", 16, 4320),
    ("pairs_per_second", 0, 1000),
    ("gap_tries", 1, 1000),
    ("center_lo", 0, 1),
    ("center_hi", 0, 1),
    ("gap_min_frac", 0, 1),
    ("gap_max_frac", 0, 1),
    ("min_gap_frames", 1, None),
    ("semantic_min_separation", 0, 1),
    ("mixed_size", 1, None),
    ("crf", 0, 51),
)


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    """The thresholds and options of `harness build tempcloze`."""
    d = BuildConfig()
    parser.add_argument("--seed", type=int, default=d.seed, help="seed of every random draw (default 0)")
    parser.add_argument(
        "--virtual", action="store_true", help="write clips.json segment lists, no video files"
    )
    parser.add_argument("--workers", type=int, default=d.workers, help="parallel processes (default 1)")
    parser.add_argument("--min-duration", type=float, default=d.min_duration, help="seconds (default 4)")
    parser.add_argument("--max-duration", type=float, default=None, help="seconds (default: no limit)")
    parser.add_argument(
        "--min-sharpness", type=float, default=d.min_sharpness, help="variance of the Laplacian (default 30)"
    )
    parser.add_argument(
        "--min-motion",
        type=float,
        default=d.min_motion,
        help="mean flow px/frame at 256 px height (default 1.0)",
    )
    parser.add_argument("--flow-height", type=int, default=d.flow_height, help="frame height for flow (256)")
    parser.add_argument(
        "--pairs-per-second",
        type=float,
        default=d.pairs_per_second,
        help="frame pairs measured per second (2)",
    )
    parser.add_argument("--gap-tries", type=int, default=d.gap_tries, help="gap samples before dropping (3)")
    parser.add_argument(
        "--semantic",
        choices=("paper", "release"),
        default=d.semantic,
        help="semantic distractor rule: 'paper' (gap-length clips outside the gap) or 'release' (public code)",
    )
    parser.add_argument(
        "--mixed-size", type=int, default=d.mixed_size, help="videos in mixed_ids.json (300; 0 = all)"
    )
    parser.add_argument(
        "--sources",
        choices=("link", "copy", "reference"),
        default=d.sources,
        help="virtual mode: hard-link (copy when impossible) or copy kept sources into OUT/sources/, "
        "or reference them where they are (the harness only plays media inside the dataset root)",
    )
    parser.add_argument(
        "--source",
        default=None,
        help="the dataset source every item came from (e.g. MiraData), recorded per item for the per-source "
        "tables; default: the subfolder of --videos a video lies in, else the --videos folder's name",
    )
    parser.add_argument("--crf", type=int, default=d.crf, help="H.264 quality of written clips (18)")
    parser.add_argument(
        "--suitability-model",
        default=None,
        help="optional model-based suitability filter: a registered model name (python -m harness ls "
        "models) or a 'package.module:Class' Model reference",
    )
    parser.add_argument(
        "--suitability-model-args",
        default=None,
        help="the suitability model's args: k=v,k2=v2 or a JSON object (as --model_args)",
    )


def config_from_args(args: argparse.Namespace) -> BuildConfig:
    """A BuildConfig from parsed flags (unknown attributes ignored)."""
    values = {}
    for f in fields(BuildConfig):
        if hasattr(args, f.name):
            values[f.name] = getattr(args, f.name)
    if values.get("mixed_size") == 0:
        values["mixed_size"] = None
    return BuildConfig(**values)
