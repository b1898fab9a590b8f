"""Where a CycliST build's files go: the hub release's kind-first layout (`scenes/<tier>/<split>/`,
`videos/<tier>/<split>/`, `questions/<tier>/<split>/questions_<template>.json`), so `--data` reads a build
and the release by one code path. What the release has no place for goes in folders it does not use:
`masks/<tier>/<split>/` (per-object masks) and `build/<tier>/` (build_config.json, <split>/manifest.json)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import TIERS

RELEASE_KINDS = ("scenes", "videos", "questions")


@dataclass(frozen=True)
class SplitDirs:
    """The folders of one tier and split in a dataset root."""

    root: Path
    tier_folder: str
    split: str

    def kind(self, name: str) -> Path:
        """`<name>/<tier>/<split>` (name: scenes, videos, questions or masks)."""
        return self.root / name / self.tier_folder / self.split

    scenes = property(lambda self: self.kind("scenes"), doc="scenes/<tier>/<split>: the scene JSON files")
    videos = property(lambda self: self.kind("videos"), doc="videos/<tier>/<split>: the rendered videos")
    masks = property(
        lambda self: self.kind("masks"), doc="masks/<tier>/<split>: per-object masks (not in the release)"
    )
    questions = property(
        lambda self: self.kind("questions"), doc="questions/<tier>/<split>: questions_<template>.json"
    )

    @property
    def build_config(self) -> Path:
        """Shared by the tier's splits (they must be built with the same settings)."""
        return self.root / "build" / self.tier_folder / "build_config.json"

    @property
    def manifest(self) -> Path:
        return self.root / "build" / self.tier_folder / self.split / "manifest.json"


def split_dirs(root: Path, tier: str, split: str) -> SplitDirs:
    """The folders of tier `tier` (L1..L5) and `split` under a dataset root."""
    return SplitDirs(Path(root), TIERS[tier].folder, split)


def questions_file(template_filename: str) -> str:
    """The release's name of a template file's questions: `questions_<template>.json`."""
    return f"questions_{Path(template_filename).stem}.json"


def dataset_parts(root: Path) -> list[dict[str, Path]]:
    """{"scenes", "questions", "videos", "masks"} folders of every tier and split in a kind-first root
    (sorted), or the root's own folders when it is one tier folder (earlier builds)."""
    root = Path(root)
    found = sorted(
        {
            (tier.name, split.name)
            for kind in RELEASE_KINDS
            if (root / kind).is_dir()
            for tier in (root / kind).iterdir()
            if tier.is_dir()
            for split in tier.iterdir()
            if split.is_dir()
        }
    )
    if found:
        return [{k: SplitDirs(root, t, s).kind(k) for k in (*RELEASE_KINDS, "masks")} for t, s in found]
    return [{k: root / k for k in (*RELEASE_KINDS, "masks")}]
