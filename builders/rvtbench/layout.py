"""Where an RVTBench build writes its files (read by the rvtbench tasks), and where it reads a CycliST build.

Output: `OUT/videos/<id>.mp4` (the source, copied), `OUT/dt/<id>.json` (the digital twin, schema-checked),
`OUT/test.jsonl` (one sample per line), `OUT/manifest.json` (configuration, counts, digest).

Input of `--from-synthetic`: a CycliST build or release folder, read as data in the release's kind-first
layout (`scenes/<tier>/<split>/<stem>_config.json`, with `masks/` and `videos/` of the same tier and split
beside it; docs/builders/cyclist.md), or one tier folder as earlier builds wrote it (`scenes/`, `masks/`,
`videos/`). The CycliST builder's modules are not imported: the layout is the contract.
"""

from __future__ import annotations

from pathlib import Path

VIDEOS_DIR = "videos"
DT_DIR = "dt"
SAMPLES_FILE = "test.jsonl"
MANIFEST_FILE = "manifest.json"

#: the folders of a CycliST build that hold what a digital twin is made of, per tier and split
CYCLIST_SCENE_KINDS = ("scenes", "masks", "videos")
CYCLIST_SCENE_SUFFIX = "_config.json"


def video_file(video_id: str, suffix: str) -> str:
    """The dataset-relative path of a source video's copy: `videos/<id><suffix>`."""
    return f"{VIDEOS_DIR}/{video_id}{suffix}"


def dt_file(out: Path, video_id: str) -> Path:
    """The DT JSON of a video in the dataset folder `out`: `out/dt/<id>.json`."""
    return Path(out) / DT_DIR / f"{video_id}.json"


def cyclist_folders(root: Path) -> list[dict[str, Path]]:
    """{"scenes", "masks", "videos"} folders of every tier and split of a CycliST build at `root` (sorted by
    tier and split folder), or the root's own folders when it is one tier folder of an earlier build."""
    root = Path(root)
    scenes = root / "scenes"
    found = sorted(
        (tier.name, split.name)
        for tier in (scenes.iterdir() if scenes.is_dir() else ())
        if tier.is_dir()
        for split in tier.iterdir()
        if split.is_dir()
    )
    if not found:
        return [{kind: root / kind for kind in CYCLIST_SCENE_KINDS}]
    return [{kind: root / kind / tier / split for kind in CYCLIST_SCENE_KINDS} for tier, split in found]
