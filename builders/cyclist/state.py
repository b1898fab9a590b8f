"""The one decoder of a scene JSON's per-frame state (built or released).

The release's cycle records (per-frame states for linear/orbit/rotate, key frames for resize/recolor,
per-frame light intensities) are read here and only here: the frame count (`scene_num_frames`), which key
frame a frame shows (`shown_keyframe`), the sizes a resize cycle's keys stand for (`resize_keys`) and an
object's ground position per frame (`object_locations`). `frame_states(scene)` turns them into dense arrays
for renderers and other consumers; the question engine's checked view (harness_builders.cyclist.questions.state)
is built from the same functions. Frame index t is 0-based: the release's state entry with
`"frame": t + 1` and `relationships[rel][str(t)]`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .colors import hue_interpolate
from .constants import COLORS_255, RELATIONS, SIZES


class SceneSchemaError(ValueError):
    """A scene that does not match the CycliST scene schema; names the scene and the offending field."""

    def __init__(self, scene: str, field_name: str, problem: str) -> None:
        self.scene = scene
        self.field = field_name
        self.problem = problem
        super().__init__(f"scene '{scene}': field '{field_name}': {problem}")


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


def scene_num_frames(scene: Mapping[str, Any], name: str = "<scene>") -> int:
    """T: `number_of_frames` (our builder), else round(fps x duration) (the release's CLI args), else
    `num_frames`, else the number of frames in `relationships`; SceneSchemaError when none gives one."""
    if isinstance(scene.get("number_of_frames"), int) and scene["number_of_frames"] > 0:
        return int(scene["number_of_frames"])
    fps, duration = scene.get("fps"), scene.get("duration")
    if isinstance(fps, (int, float)) and isinstance(duration, (int, float)):
        frames = int(round(float(fps) * float(duration)))
        if frames <= 0:
            raise SceneSchemaError(name, "fps", f"fps x duration = {fps} x {duration} gives no frames")
        return frames
    if isinstance(scene.get("num_frames"), int) and scene["num_frames"] > 0:
        return int(scene["num_frames"])
    rels = scene.get("relationships")
    if isinstance(rels, Mapping):
        for rel in RELATIONS:
            if rel in rels and len(rels[rel]) > 0:
                return len(rels[rel])
    raise SceneSchemaError(name, "fps", "no frame count: give fps and duration (or num_frames)")


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


def keyframes(states: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Key frames sorted by frame, keeping the last entry of a repeated frame (as Blender overwrites)."""
    by_frame: dict[int, Mapping[str, Any]] = {}
    for s in states:
        by_frame[int(s["frame"])] = s
    return [by_frame[k] for k in sorted(by_frame)]


def shown_keyframe(frames: np.ndarray, num_frames: int) -> np.ndarray:
    """For frames 0..T-1, the index of the key frame (sorted, 1-based frame numbers) whose value the frame
    shows: the earlier key up to and including the midpoint of an interval, the later one after it; the
    nearest key before the first and after the last."""
    a, u = _keyframe_segments(np.asarray(frames, float), num_frames)
    return np.where(u > 0.5, np.minimum(a + 1, len(frames) - 1), a)


def resize_keys(
    states: list[Mapping[str, Any]], initial: str, other: str, sizes: Mapping[str, float]
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """(key frames, size name, scale) of a resize cycle's key frames (sorted, repeated frames: the last).
    A key names its size (`{"size", "frame"}`) or, as the release writes it, a scale factor relative to
    the previous key: the running product of the factors is the scale relative to the initial size, so a
    key at 1 shows the initial size and any other the object's other size (`intermittent_size`)."""
    keys = keyframes(states)
    names, scales, running = [], [], 1.0
    for s in keys:
        if "size" in s:
            names.append(str(s["size"]))
            scales.append(float(sizes[s["size"]]))
            continue
        running *= float(s["factor"])
        names.append(initial if math.isclose(running, 1.0, rel_tol=1e-3) else other)
        scales.append(float(sizes[initial]) * running)
    return np.array([float(s["frame"]) for s in keys]), names, np.array(scales)


def other_size(obj: Mapping[str, Any], sizes: Mapping[str, float]) -> str:
    """The size a resizing object changes into: its `intermittent_size`, else the other of the sizes."""
    if obj.get("intermittent_size") in sizes:
        return str(obj["intermittent_size"])
    return next((z for z in sizes if z != obj.get("size")), str(obj.get("size")))


def rotate_lift(mesh: str, theta: np.ndarray) -> np.ndarray:
    """Centre height (in units of the object's scale) that keeps a mesh tumbled by theta about its x axis
    on the ground: the negated lowest z of the unit mesh (cube/cylinder [-1,1] profile; cone apex at +1)."""
    c, s = np.cos(theta), np.abs(np.sin(theta))
    if mesh == "Cone":
        return -np.minimum(c, -s - c)
    if mesh == "Sphere":
        return np.ones_like(theta)
    return s + np.abs(c)


def object_locations(obj: Mapping[str, Any], num_frames: int, where: str) -> np.ndarray:
    """(T, 2) ground position of an object per frame: its motion cycle's states (linear or orbit; one per
    frame), else its static location."""
    cycles = obj.get("cycles") or {}
    for kind in ("linear", "orbit"):
        if kind in cycles:
            states = cycles[kind]["states"]
            if len(states) < num_frames:
                raise ValueError(
                    f"{where} cycles.{kind}: {len(states)} states for {num_frames} frames; expected one per frame"
                )
            return np.array([(s["location"]["x"], s["location"]["y"]) for s in states[:num_frames]], float)
    loc = obj["location"]
    return np.tile(np.array([float(loc["x"]), float(loc["y"])]), (num_frames, 1))


def _size_track(obj: Mapping[str, Any], sizes: dict[str, float], T: int) -> tuple[Any, Any]:
    """(scale, size name) of one object: its size's, or per frame along its resize cycle's key frames."""
    base = sizes[obj["size"]]
    cycles = obj.get("cycles") or {}
    if "resize" not in cycles:
        return base, obj["size"]
    frames, names, values = resize_keys(
        cycles["resize"]["states"], obj["size"], other_size(obj, sizes), sizes
    )
    a, u = _keyframe_segments(frames, T)
    b = np.minimum(a + 1, len(frames) - 1)
    return values[a] + (values[b] - values[a]) * u, [names[k] for k in shown_keyframe(frames, T)]


def _color_track(obj: Mapping[str, Any], colors: dict[str, np.ndarray], T: int) -> tuple[Any, Any]:
    """(RGB, colour name) of one object: its colour's, or per frame along its recolor cycle (hue-blended)."""
    rgb = colors[obj["color"]]
    cycles = obj.get("cycles") or {}
    if "recolor" not in cycles:
        return rgb, obj["color"]
    st = keyframes(cycles["recolor"]["states"])
    frames = np.array([s["frame"] for s in st], float)
    a, u = _keyframe_segments(frames, T)
    b = np.minimum(a + 1, len(st) - 1)
    ca = np.stack([colors[st[k]["color"]] for k in a])
    cb = np.stack([colors[st[k]["color"]] for k in b])
    return hue_interpolate(ca, cb, u), [st[k]["color"] for k in shown_keyframe(frames, T)]


def _light_intensity(scene: Mapping[str, Any], T: int) -> np.ndarray:
    """The lamps' intensity per frame (1 when the scene has no light cycle)."""
    lights = scene.get("lights")
    if isinstance(lights, Mapping) and lights.get("states"):
        return np.array([float(s["intensity"]) for s in lights["states"][:T]], float)
    return np.ones(T)


def frame_states(scene: Mapping[str, Any]) -> SceneStates:
    """Dense per-frame state of every object of a scene JSON (built or released); see the module doc."""
    T = scene_num_frames(scene, str(scene.get("scene_config_file", "<scene>")))
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
        pos[i, :, :2] = object_locations(obj, T, where)
        angle[i] = float(obj.get("angle", 0.0))
        if "rotate" in cycles:
            st = cycles["rotate"]["states"]
            rotation[i] = np.array([float(s["rotation"][0]) for s in st[:T]], float)
        scale[i], size[i] = _size_track(obj, sizes, T)
        color_rgb[i], color[i] = _color_track(obj, colors, T)
        lift = rotate_lift(obj["mesh"], rotation[i]) if "rotate" in cycles else 1.0
        pos[i, :, 2] = scale[i] * lift
        periods = {k: int(v["period"]) for k, v in cycles.items()}
        cycles_out.append(periods)
        phase_out.append({k: (t % p) / p for k, p in periods.items()})
    light = _light_intensity(scene, T)
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
