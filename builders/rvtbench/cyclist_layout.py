"""Where a CycliST build keeps its rendered scenes: what `build rvtbench --from-synthetic DIR` reads.

Three layouts are read, each with the scene JSON, the masks JSON (the renderer's exact COCO RLE per object
per frame; not part of the official release) and the video of every rendered scene:
  flat        DIR/scenes/<stem>_config.json, DIR/masks/<stem>.json, DIR/videos/<stem>.mp4
              (what `build cyclist --out DIR` wrote before the release layout)
  kind first  DIR/scenes/<tier>/<split>/<stem>_config.json, DIR/masks/<tier>/<split>/<stem>.json,
              DIR/videos/<tier>/<split>/<stem>.mp4 (the official release's layout; masks beside it)
  tier first  DIR/<tier>/scenes/..., DIR/<tier>/masks/..., DIR/<tier>/videos/... (either form inside)
DIR may also hold the build in DIR/cyclist/ (the data-root convention, docs/benchmarks/README). A scene's
masks are looked up in the masks folder mirroring its scene folder, then at the masks folder's top; its
video likewise (by the scene's `video_file`, else <stem>.mp4). Scenes without masks or video (not rendered)
are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

SCENE_SUFFIX = "_config.json"


def _bases(cyclist_dir: Path) -> list[Path]:
    """Folders holding a `scenes/` folder: DIR, DIR/cyclist, and DIR/<tier> (tier first)."""
    out = []
    for top in (cyclist_dir, cyclist_dir / "cyclist"):
        if (top / "scenes").is_dir():
            out.append(top)
        elif top.is_dir():
            out += sorted(p for p in top.iterdir() if p.is_dir() and (p / "scenes").is_dir())
        if out:
            break
    return out


def _first(candidates: list[Path]) -> Path | None:
    return next((p for p in candidates if p.is_file()), None)


def _video_name(scene_path: Path, stem: str) -> str:
    try:
        name = json.loads(scene_path.read_text(encoding="utf-8-sig")).get("video_file")
    except (OSError, ValueError, AttributeError):
        name = None
    return Path(name).name if isinstance(name, str) and name else f"{stem}.mp4"


def scene_paths(cyclist_dir: Path) -> list[tuple[str, Path, Path, Path]]:
    """(video id, scene JSON, masks JSON, video) of every rendered scene of a CycliST build, sorted.

    The id is the stem in the flat layout, else the scene's folders and stem joined by '_' (unique across
    tiers and splits)."""
    cyclist_dir = Path(cyclist_dir)
    out = []
    for base in _bases(cyclist_dir):
        scenes = base / "scenes"
        prefix = [base.name] if base not in (cyclist_dir, cyclist_dir / "cyclist") else []
        for scene_path in sorted(scenes.rglob(f"*{SCENE_SUFFIX}")):
            stem = scene_path.name[: -len(SCENE_SUFFIX)]
            rel = scene_path.parent.relative_to(scenes)
            masks = _first([base / "masks" / rel / f"{stem}.json", base / "masks" / f"{stem}.json"])
            name = _video_name(scene_path, stem)
            video = _first([base / "videos" / rel / name, base / "videos" / name])
            if masks is not None and video is not None:
                out.append(("_".join([*prefix, *rel.parts, stem]), scene_path, masks, video))
    if not out:
        raise ValueError(
            f"--from-synthetic {cyclist_dir}: no rendered CycliST scenes; looked for scenes/**/*{SCENE_SUFFIX} with "
            "their masks/ and videos/ (flat, or <tier>/<split>/ below each) in DIR, DIR/cyclist and DIR/<tier>; "
            "build some with `python -m harness build cyclist --out DIR ...` (the raster renderer writes masks)"
        )
    ids = [o[0] for o in out]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})[0]
        raise ValueError(f"--from-synthetic {cyclist_dir}: two scenes map to the video id '{dup}'")
    return sorted(out)
