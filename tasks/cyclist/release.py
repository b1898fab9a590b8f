"""Where CycliST's files lie under a `--data` ROOT, in any of the layouts the tasks read.

- kind first, the hub release `AIML-TUDA/CycliST` as published and what `build cyclist --out` writes:
  `questions/<tier>/<split>/*.json`, `scenes/<tier>/<split>/*.json`, `videos/<tier>/<split>/<video_filename>`;
- tier first (earlier builds): `<tier>/questions/*.json`, `<tier>/scenes/*.json`, `<tier>/videos/`;
- one tier folder: ROOT itself holds `questions/` and `scenes/` (or `*questions*.json` / `*scenes*.json`).

Each is looked for in ROOT/cyclist first, then in ROOT (docs/benchmarks/cyclist.md, "Data"). Two layouts in
one place, or none, is a DataError naming ROOT, the relative paths looked for and the fix.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from harness.api import DataError
from harness_tasks.cyclist.vocab import TIERS

DATASET_ID = "AIML-TUDA/CycliST"
BENCHMARK_DIR = "cyclist"
KIND_FIRST, TIER_FIRST, TIER_FOLDER = "kind first", "tier first", "tier folder"
_SINGULAR = {"questions": "question", "scenes": "scene"}


@dataclass(frozen=True)
class Source:
    """Where one tier's files of one kind (questions or scenes) lie, and how video names resolve."""

    layout: str
    root: Path  # the folder --data named: media paths are relative to it
    folder: Path  # kind first: <kind>/<tier>/<split>; otherwise the tier folder
    kind: str
    split: Optional[str] = None  # kind first: the split its folder holds (rows need not name it)

    def files(self) -> list[Path]:
        """The JSON files of this kind, sorted by name."""
        if self.layout == KIND_FIRST:
            return sorted(p for p in self.folder.glob("*.json") if p.is_file())
        sub = self.folder / self.kind
        files = sorted(p for p in sub.glob("*.json") if p.is_file()) if sub.is_dir() else []
        word = _SINGULAR[self.kind]
        return files + sorted(p for p in self.folder.glob("*.json") if word in p.name.lower())

    def video_path(self, filename: str) -> str:
        """A row's video file as a path relative to ROOT (absolute names are kept, for the media check)."""
        if os.path.isabs(filename):
            return filename
        if self.layout == KIND_FIRST:
            release = self.folder.parents[2]
            videos = release / "videos" / self.folder.parent.name / self.folder.name
            target = videos / filename if "/" not in filename else release / filename
        else:
            has_dir = "/" not in filename and (self.folder / "videos").is_dir()
            target = self.folder / "videos" / filename if has_dir else self.folder / filename
        return target.relative_to(self.root).as_posix()


def tier_folder(tier: Optional[str]) -> Optional[str]:
    """The release's folder name of a tier code (L1 -> unicycle); None for None."""
    return TIERS[tier][0] if tier else None


def release_patterns(tier: str, split: str, kind: str = "questions") -> list[str]:
    """The release files one task reads for a tier and split (relative to the release root, glob style):
    questions (VQA) or scenes (captions), and the videos."""
    folder = tier_folder(tier)
    return [f"{kind}/{folder}/{split}/*.json", f"videos/{folder}/{split}/*"]


def hub_patterns(split: str, options: dict) -> list[str]:
    """The task YAMLs' `dataset.hub.patterns_hook`: what a task of `options` (tier, kind) downloads for `split`."""
    kind = "scenes" if options.get("kind") == "caption" else "questions"
    return release_patterns(options.get("tier") or "L1", split, kind)


def fix_hint(tier: Optional[str], split: str, kind: str, root: Path) -> str:
    """The two ways to get the files: download the release, or build them."""
    code = tier or "L1"
    include = " ".join(f"'{p}'" for p in release_patterns(code, split, kind))
    return (
        f"download the release: `huggingface-cli download {DATASET_ID} --repo-type dataset --include "
        f"{include} --local-dir {root / BENCHMARK_DIR}`, or build it: `python -m harness build cyclist "
        f"--tier {code} --split {split} --out {root / BENCHMARK_DIR}`; then pass --data {root}"
    )


def _is_tier_folder(folder: Path, kind: str) -> bool:
    sub = folder / kind
    if sub.is_dir() and any(p.is_file() for p in sub.glob("*.json")):
        return True
    return any(_SINGULAR[kind] in p.name.lower() for p in folder.glob("*.json"))


def _layouts_at(base: Path, folder: Optional[str], kind: str) -> list[tuple[str, Path]]:
    found = []
    if folder and (base / kind / folder).is_dir():
        found.append((KIND_FIRST, base / kind / folder))
    if folder and (base / folder).is_dir() and _is_tier_folder(base / folder, kind):
        found.append((TIER_FIRST, base / folder))
    if _is_tier_folder(base, kind):
        found.append((TIER_FOLDER, base))
    return found


def looked_for(folder: Optional[str], kind: str) -> list[str]:
    """The relative paths searched under a base folder, in the words of the error messages."""
    word = _SINGULAR[kind]
    out = [f"{kind}/{folder}/<split>/*.json ({KIND_FIRST})", f"{folder}/{kind}/*.json ({TIER_FIRST})"]
    return (out if folder else []) + [f"{kind}/*.json or *{word}*.json ({TIER_FOLDER})"]


def locate(root: Path, tier: Optional[str], split: str, kind: str) -> Source:
    """The files of `kind` ("questions" or "scenes") for a tier and split under ROOT (see the module doc)."""
    root = Path(root)
    folder = tier_folder(tier)
    for base in (root / BENCHMARK_DIR, root):
        if not base.is_dir():
            continue
        found = _layouts_at(base, folder, kind)
        if len(found) > 1:
            where = "; ".join(f"{p.relative_to(root).as_posix() or '.'} ({name})" for name, p in found)
            raise DataError(
                f"CycliST: {root} holds {kind} in {len(found)} layouts at once: {where}; keep one "
                f"(the release's kind-first layout is what `build cyclist --out` writes) or point --data "
                "at the one to use"
            )
        if found:
            return _source(root, *found[0], kind, split, tier)
    paths = [f"{prefix}{p}" for prefix in (f"{BENCHMARK_DIR}/", "") for p in looked_for(folder, kind)]
    raise DataError(
        f"CycliST: no {tier or ''} {kind} under {root}: looked for {', '.join(paths)}; "
        f"{fix_hint(tier, split, kind, root)}"
    )


def _source(root: Path, layout: str, path: Path, kind: str, split: str, tier: Optional[str]) -> Source:
    if layout != KIND_FIRST:
        return Source(layout, root, path, kind)
    if not (path / split).is_dir():
        have = sorted(p.name for p in path.iterdir() if p.is_dir())
        raise DataError(
            f"CycliST: {root} holds the release's {kind}/{path.name}/ but no split '{split}' in it "
            f"({path.relative_to(root).as_posix()}/{split}/ is missing; it has: {', '.join(have) or 'nothing'}); "
            f"{fix_hint(tier, split, kind, root)}"
        )
    return Source(layout, root, path / split, kind, split)
