"""Per-frame object state derived from a scene JSON alone (built or released): the consumers' view.

`frame_states(scene)` turns the release's cycle records (per-frame states for linear/orbit/rotate, key
frames for resize/recolor, per-frame light intensities) into dense arrays, one value per object and frame.
Frame index t is 0-based: the release's state entry with `"frame": t + 1` and `relationships[rel][str(t)]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .colors import hue_interpolate
from .constants import COLORS_255, SIZES


@dataclass
class SceneStates:
    """Dense per-frame state of every object; see docs/builders/cyclist.md for the field table."""

    num_frames: int
    fps: float
    position: np.ndarray  # (N, T, 3)
    angle: np.ndarray  # (N, T)
    rotation: np.ndarray  # (N, T)
    scale: np.ndarray  # (N, T)
    size: np.ndarray  # (N, T) str
    color_rgb: np.ndarray  # (N, T, 3)
    color: np.ndarray  # (N, T) str
    light_intensity: np.ndarray  # (T,)
    cycles: list[dict[str, int]]
    phase: list[dict[str, np.ndarray]]
    within_bounds: np.ndarray  # (N, T) bool
    meshes: list[str]
    materials: list[str]

    def object_at(self, i: int, t: int) -> dict[str, Any]:
        """Object i at frame t as plain Python values (position, angle, rotation, scale, size, colour)."""
        return {
            "position": [float(v) for v in self.position[i, t]],
            "angle": float(self.angle[i, t]),
            "rotation": float(self.rotation[i, t]),
            "scale": float(self.scale[i, t]),
            "size": str(self.size[i, t]),
            "color": str(self.color[i, t]),
            "color_rgb": [float(v) for v in self.color_rgb[i, t]],
            "mesh": self.meshes[i],
            "material": self.materials[i],
            "cycles": dict(self.cycles[i]),
        }


def scene_num_frames(scene: Mapping[str, Any]) -> int:
    """T: the scene's `number_of_frames`, else round(fps * duration) (the release stores only those two)."""
    if "number_of_frames" in scene:
        return int(scene["number_of_frames"])
    return int(round(float(scene["fps"]) * float(scene["duration"])))


def _color_table(scene: Mapping[str, Any]) -> dict[str, np.ndarray]:
    colors = scene.get("colors") or {k: [c / 255.0 for c in v] for k, v in COLORS_255.items()}
    return {k: np.asarray(v[:3], float) for k, v in colors.items()}


def _keyframe_segments(frames: np.ndarray, num_frames: int) -> tuple[np.ndarray, np.ndarray]:
    """For frames 1..T: index a of the key frame at or before, and u in [0, 1] towards key frame a+1."""
    f = np.arange(1, num_frames + 1, dtype=float)
    a = np.clip(np.searchsorted(frames, f, side="right") - 1, 0, len(frames) - 1)
    b = np.minimum(a + 1, len(frames) - 1)
    span = frames[b] - frames[a]
    u = np.where(span > 0, (f - frames[a]) / np.where(span > 0, span, 1.0), 0.0)
    return a, np.clip(u, 0.0, 1.0)


def _dedupe(states: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Key frames sorted by frame, keeping the last entry of a repeated frame (as Blender overwrites)."""
    by_frame: dict[int, Mapping[str, Any]] = {}
    for s in states:
        by_frame[int(s["frame"])] = s
    return [by_frame[k] for k in sorted(by_frame)]


def rotate_lift(mesh: str, theta: np.ndarray) -> np.ndarray:
    """Centre height (in units of the object's scale) that keeps a mesh tumbled by theta about its x axis
    on the ground: the negated lowest z of the unit mesh (cube/cylinder [-1,1] profile; cone apex at +1)."""
    c, s = np.cos(theta), np.abs(np.sin(theta))
    if mesh == "Cone":
        return -np.minimum(c, -s - c)
    if mesh == "Sphere":
        return np.ones_like(theta)
    return s + np.abs(c)


def _per_frame_locations(states: list[Mapping[str, Any]], num_frames: int, where: str) -> np.ndarray:
    if len(states) < num_frames:
        raise ValueError(f"{where}: {len(states)} states for {num_frames} frames; expected one per frame")
    return np.array([(s["location"]["x"], s["location"]["y"]) for s in states[:num_frames]], float)


def frame_states(scene: Mapping[str, Any]) -> SceneStates:
    """Dense per-frame state of every object of a scene JSON (built or released); see the module doc."""
    T = scene_num_frames(scene)
    objects = scene.get("objects") or []
    sizes = {k: float(v) for k, v in (scene.get("sizes") or SIZES).items()}
    colors = _color_table(scene)
    N = len(objects)
    pos = np.zeros((N, T, 3))
    angle = np.zeros((N, T))
    rotation = np.zeros((N, T))
    scale = np.zeros((N, T))
    size = np.empty((N, T), dtype=object)
    color_rgb = np.zeros((N, T, 3))
    color = np.empty((N, T), dtype=object)
    cycles_out: list[dict[str, int]] = []
    phase_out: list[dict[str, np.ndarray]] = []
    t = np.arange(T)
    for i, obj in enumerate(objects):
        where = f"scene {scene.get('scene_config_file', '?')} object {i}"
        cycles = obj.get("cycles") or {}
        loc = obj["location"]
        pos[i, :, 0], pos[i, :, 1] = float(loc["x"]), float(loc["y"])
        for kind in ("linear", "orbit"):
            if kind in cycles:
                pos[i, :, :2] = _per_frame_locations(cycles[kind]["states"], T, f"{where} cycles.{kind}")
        angle[i] = float(obj.get("angle", 0.0))
        if "rotate" in cycles:
            st = cycles["rotate"]["states"]
            rotation[i] = np.array([float(s["rotation"][0]) for s in st[:T]], float)
        base = sizes[obj["size"]]
        scale[i] = base
        size[i] = obj["size"]
        if "resize" in cycles:
            st = _dedupe(cycles["resize"]["states"])
            frames = np.array([s["frame"] for s in st], float)
            values = base * np.cumprod([float(s["factor"]) for s in st])
            a, u = _keyframe_segments(frames, T)
            b = np.minimum(a + 1, len(st) - 1)
            scale[i] = values[a] + (values[b] - values[a]) * u
            names = {round(v, 6): k for k, v in sizes.items()}
            size[i] = [
                names.get(round(float(values[b[k] if u[k] > 0.5 else a[k]]), 6), obj["size"]) for k in t
            ]
        color_rgb[i] = colors[obj["color"]]
        color[i] = obj["color"]
        if "recolor" in cycles:
            st = _dedupe(cycles["recolor"]["states"])
            frames = np.array([s["frame"] for s in st], float)
            a, u = _keyframe_segments(frames, T)
            b = np.minimum(a + 1, len(st) - 1)
            ca = np.stack([colors[st[k]["color"]] for k in a])
            cb = np.stack([colors[st[k]["color"]] for k in b])
            color_rgb[i] = hue_interpolate(ca, cb, u)
            color[i] = [st[b[k]]["color"] if u[k] > 0.5 else st[a[k]]["color"] for k in t]
        lift = rotate_lift(obj["mesh"], rotation[i]) if "rotate" in cycles else 1.0
        pos[i, :, 2] = scale[i] * lift
        periods = {k: int(v["period"]) for k, v in cycles.items()}
        cycles_out.append(periods)
        phase_out.append({k: (t % p) / p for k, p in periods.items()})
    light = np.ones(T)
    lights = scene.get("lights")
    if isinstance(lights, Mapping) and lights.get("states"):
        light = np.array([float(s["intensity"]) for s in lights["states"][:T]], float)
    min_x, max_x = float(scene.get("min_x", -5.0)), float(scene.get("max_x", 5.0))
    min_y, max_y = float(scene.get("min_y", -5.0)), float(scene.get("max_y", 5.0))
    within = (pos[..., 0] >= min_x) & (pos[..., 0] <= max_x) & (pos[..., 1] >= min_y) & (pos[..., 1] <= max_y)
    return SceneStates(
        num_frames=T,
        fps=float(scene.get("fps", 32)),
        position=pos,
        angle=angle,
        rotation=rotation,
        scale=scale,
        size=size,
        color_rgb=color_rgb,
        color=color,
        light_intensity=light,
        cycles=cycles_out,
        phase=phase_out,
        within_bounds=within,
        meshes=[o["mesh"] for o in objects],
        materials=[o["material"] for o in objects],
    )
