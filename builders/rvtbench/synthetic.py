"""The exact digital twin of a CycliST scene: masks from the scene build, depth from the z-buffer, attributes.

`--from-synthetic` needs no perception model: instance masks are the CycliST builder's masks JSON (COCO RLE
per object per frame), per-pixel depth is the raster renderer's z-buffer (exact for raster builds; for
Blender builds it is the same geometry rendered by the raster camera model), and attributes (colour, size,
material, shape) per frame come from the CycliST builder's scene states. The CycliST parts (`cyclist.scene_states`,
`cyclist.renderer.raster`) are reached through the registry, as any plugin reaches another's, and the build's
folders are read as data in the release layout (layout.py): no module of the CycliST builder is imported.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from harness.api import read_json_file
from harness_metrics import decode_rle

from .dt import SAME_DEPTH_THRESHOLD, frame_relations, instance_record, normalise_depth, spatial_description
from .features import FrameFeatures
from .layout import CYCLIST_SCENE_SUFFIX, cyclist_folders
from .parts import builder_part

#: the CycliST builder's parts a synthetic DT is made with (registered by its plugin)
SCENE_STATES_PART = "cyclist.scene_states"
RASTER_PART = "cyclist.renderer.raster"

CYCLE_WORDS = {
    "linear": "moves back and forth",
    "orbit": "circles around a point",
    "rotate": "tumbles in place",
    "resize": "grows and shrinks",
    "recolor": "changes colour",
}


def noun_phrase(attrs: dict[str, str]) -> str:
    """'large purple metal cylinder' from attribute values (no article)."""
    words = [
        attrs.get("size", ""),
        attrs.get("color", ""),
        attrs.get("material", ""),
        attrs.get("shape", "object"),
    ]
    return " ".join(w for w in words if w)


def describe(attrs: dict[str, str]) -> str:
    """'a large purple metal cylinder' from attribute values."""
    text = noun_phrase(attrs)
    return f"{'an' if text[:1] in 'aeiou' else 'a'} {text}"


def scene_paths(cyclist_dir: Path) -> list[tuple[str, Path, Path, Path]]:
    """(stem, scene JSON, masks JSON, video) of every rendered scene of a CycliST build (every tier and
    split of its kind-first layout, or one tier folder of an earlier build; in DIR or DIR/cyclist), sorted.
    Stems are the scene files' (`test_0`); when several tiers repeat one, each is prefixed with its tier
    folder."""

    if not (cyclist_dir / "scenes").is_dir() and (cyclist_dir / "cyclist" / "scenes").is_dir():
        cyclist_dir = cyclist_dir / "cyclist"  # a data root holding one folder per benchmark
    out = []
    for part in cyclist_folders(cyclist_dir):
        for scene_path in sorted(part["scenes"].glob(f"*{CYCLIST_SCENE_SUFFIX}")):
            stem = scene_path.name[: -len(CYCLIST_SCENE_SUFFIX)]
            masks, video = part["masks"] / f"{stem}.json", part["videos"] / f"{stem}.mp4"
            if masks.exists() and video.exists():
                out.append((stem, scene_path, masks, video))
    if len({row[0] for row in out}) < len(out):
        out = [
            (f"{scene.parent.parent.name}_{stem}", scene, masks, video) for stem, scene, masks, video in out
        ]
    if not out:
        raise ValueError(
            f"--from-synthetic {cyclist_dir}: no rendered CycliST scenes (scenes/<tier>/<split>/*_config.json with "
            "masks/ and videos/ beside them); build some with `python -m harness build cyclist --out DIR --renderer raster ...`"
        )
    return out


def synthetic_sources(cyclist_dir: Path, keyframe_interval: int, num_videos: int | None = None) -> list:
    """(video id, video, make_dt) for every rendered scene of a CycliST build (the first `num_videos`).

    make_dt is a picklable partial, so `--workers` can build the twins in other processes. The CycliST parts
    are looked up here first: a missing CycliST builder is named before any work, and forked workers inherit them."""
    for part in (SCENE_STATES_PART, RASTER_PART):
        builder_part(part)
    return [
        (video_id, video, partial(synthetic_dt, scene, masks, keyframe_interval=keyframe_interval))
        for video_id, scene, masks, video in scene_paths(Path(cyclist_dir))[:num_videos]
    ]


def synthetic_dt(scene_path: Path, masks_path: Path, video_rel: str, keyframe_interval: int = 1) -> dict:
    """The DT JSON of one rendered CycliST scene (exact masks, depth, attributes, templated descriptions)."""

    scene = read_json_file(scene_path, "CycliST scene file", error=ValueError)  # regular, bounded
    masks = read_json_file(masks_path, "CycliST masks file", error=ValueError)
    states = builder_part(SCENE_STATES_PART)(scene)
    width, height, num_frames = int(masks["width"]), int(masks["height"]), int(masks["num_frames"])
    objects = masks["objects"]
    renderer = builder_part(RASTER_PART)(width=width, height=height)
    rendered = list(renderer.frames(scene, states))  # (rgb, ids, z-depth) per frame
    obj_masks = [decode_rle(o["segmentations"]) for o in objects]  # (T, H, W) each
    lo, hi = _depth_range(rendered, obj_masks)
    frames, previous = [], None
    for t in range(num_frames):
        rgb, _ids, zdepth = rendered[t]
        depth = normalise_depth(zdepth, lo, hi)
        feats = FrameFeatures(rgb, previous)
        previous = feats
        instances: dict[str, dict] = {}
        for i, mask_stack in enumerate(obj_masks):
            mask = mask_stack[t]
            if not mask.any():
                continue
            attrs = _attributes(states, i, t)
            pixels = np.nonzero(mask)
            rle = objects[i]["segmentations"][t]  # the scene build's own RLE of this very mask
            features = feats.instance(mask, pixels)
            instances[str(i)] = instance_record(
                mask, depth, describe(attrs), features, 1.0, attrs, rle=rle, pixels=pixels
            )
        relations = frame_relations(instances, width, SAME_DEPTH_THRESHOLD)
        frames.append(
            {
                "timestamp": t,
                "time_s": round(t / states.fps, 6),
                "keyframe": t % keyframe_interval == 0,
                "scene_description": _scene_description(len(instances), float(states.light_intensity[t])),
                "spatial_description": spatial_description(instances, relations),
                "relations": relations,
                "instances": instances,
            }
        )
    return {
        "metadata": {
            "description": _video_description(states),
            "duration": num_frames,
            "resolution": [height, width],
            "fps": float(states.fps),
            "video": video_rel,
            "keyframe_interval": int(keyframe_interval),
            "source": f"synthetic:cyclist:{scene_path.name}",
            "parts": {
                "segmenter": "cyclist-masks",
                "depth": "cyclist-zbuffer",
                "describer": "cyclist-attributes",
            },
            "depth": {
                "convention": "distance",
                "range": [0.0, 255.0],
                "same_depth_threshold": SAME_DEPTH_THRESHOLD,
                "note": f"camera z-depth of object pixels scaled from [{lo:.4f}, {hi:.4f}] scene units",
            },
        },
        "frames": frames,
    }


def _depth_range(rendered: list, obj_masks: list[np.ndarray]) -> tuple[float, float]:
    values = [r[2][m[t]] for m in obj_masks for t, r in enumerate(rendered) if m[t].any()]
    if not values:
        return 0.0, 1.0
    flat = np.concatenate(values)
    return float(flat.min()), float(flat.max())


def _attributes(states: Any, i: int, t: int) -> dict[str, str]:
    return {
        "color": str(states.color[i, t]),
        "size": str(states.size[i, t]),
        "material": "metal" if states.materials[i] == "Metal" else "rubber",
        "shape": states.meshes[i].lower(),
    }


def _scene_description(n: int, light: float) -> str:
    mood = "brightly lit" if light > 0.66 else ("dimly lit" if light < 0.33 else "evenly lit")
    return f"A {mood} synthetic scene on a plain gray floor with {n} visible object{'s' * (n != 1)}."


def _video_description(states: Any) -> str:
    parts = []
    for i, cycles in enumerate(states.cycles):
        if not cycles:
            continue
        attrs = _attributes(states, i, 0)
        actions = " and ".join(CYCLE_WORDS.get(c, c) for c in sorted(cycles))
        parts.append(f"the {noun_phrase(attrs)} {actions}")
    n = len(states.cycles)
    text = f"A rendered scene with {n} geometric objects on a gray floor"
    return text + (": " + "; ".join(parts) + "." if parts else "; nothing moves.")
