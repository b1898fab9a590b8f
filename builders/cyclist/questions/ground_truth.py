"""Scene-understanding ground truth: every object's attributes and cycles, as the captioning matcher
compares them (mesh, material, size, color and a true/false flag per cycle type, as in the release's
judge), plus each cycle's period, completed passes and what it changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.api import read_json_file

from .state import CYCLE_TYPES, SceneState


def scene_ground_truth(scene: dict[str, Any] | str | Path | SceneState) -> dict[str, Any]:
    """{scene, video_filename, num_frames, objects: [{index, mesh, material, size, color, linear, orbit,
    rotate, resize, recolor, cycles: {type: {period, passes, ...}}}]}; raises SceneSchemaError on a
    scene that does not match the schema. Size and colour are the values at the first frame."""
    if isinstance(scene, SceneState):
        state = scene
    elif isinstance(scene, (str, Path)):
        state = SceneState(read_json_file(scene, "CycliST scene file", error=ValueError), Path(scene).name)
    else:
        state = SceneState(scene, str(scene.get("video_file", "<scene>")))
    objects = []
    for obj in state.objects:
        cycles: dict[str, Any] = {}
        for kind, c in obj.cycles.items():
            entry: dict[str, Any] = {"period": c.period, "passes": state.num_frames // c.period}
            if kind == "orbit":
                entry.update(center=c.center, direction=c.direction)
            if kind in ("recolor", "resize"):
                entry["values"] = list(c.values)
            cycles[kind] = entry
        record = {
            "index": obj.index,
            "mesh": obj.shape,
            "material": obj.material,
            "size": obj.size,
            "color": obj.color,
        }
        record.update({kind: kind in obj.cycles for kind in CYCLE_TYPES})
        record["cycles"] = cycles
        objects.append(record)
    return {
        "scene": state.name,
        "video_filename": state.video_filename,
        "num_frames": state.num_frames,
        "tier": state.tier,
        "split": state.split,
        "objects": objects,
    }
