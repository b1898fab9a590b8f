"""Per-frame scene state read straight from a CycliST scene JSON (ours or the public release's).

The scene JSON stores motion cycles (orbit, linear, rotate) as a state per frame, attribute cycles
(recolor, resize) as key frames, and `relationships[rel][frame]` as (i, j) pairs meaning "j is <rel>
of i". This module turns that into arrays the question engine quantifies over: a colour and a size per
object per frame, and per relation "holds in at least one frame" / "holds in every frame" matrices.
Anything that does not match the schema raises SceneSchemaError naming the scene and the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

COLORS = ("gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow")
SIZES = ("small", "large")
SHAPES = ("cube", "sphere", "cylinder", "cone")
MATERIALS = ("rubber", "metal")
RELATIONS = ("left", "right", "behind", "front")
CYCLE_TYPES = ("orbit", "linear", "rotate", "recolor", "resize")
MOTION_CYCLES = ("orbit", "linear")
DIRECTIONS = ("clockwise", "counterclockwise")
_MATERIAL_ALIASES = {"mymetal": "metal", "metallic": "metal", "rubber": "rubber", "metal": "metal"}


class SceneSchemaError(ValueError):
    """A scene that does not match the CycliST scene schema; names the scene and the offending field."""

    def __init__(self, scene: str, field_name: str, problem: str) -> None:
        self.scene = scene
        self.field = field_name
        self.problem = problem
        super().__init__(f"scene '{scene}': field '{field_name}': {problem}")


@dataclass
class Cycle:
    """One cycle of one object: its type, period in frames and what it changes."""

    kind: str
    period: int
    center: int | None = None  # orbit: index of the centre object
    direction: str | None = None  # orbit: clockwise | counterclockwise
    values: tuple[str, ...] = ()  # recolor / resize: (initial, target)


@dataclass
class SceneObject:
    """The static description of one object plus its cycles."""

    index: int
    shape: str
    material: str
    size: str
    color: str
    cycles: dict[str, Cycle] = field(default_factory=dict)


def _fail(scene: str, field_name: str, problem: str) -> SceneSchemaError:
    return SceneSchemaError(scene, field_name, problem)


def num_frames_of(scene: dict[str, Any], name: str) -> int:
    """The video's frame count: `number_of_frames` (our builder), else fps x duration (the release's CLI
    args), else `num_frames`, else the number of frames in `relationships`."""
    if isinstance(scene.get("number_of_frames"), int) and scene["number_of_frames"] > 0:
        return int(scene["number_of_frames"])
    fps, duration = scene.get("fps"), scene.get("duration")
    if isinstance(fps, (int, float)) and isinstance(duration, (int, float)):
        frames = int(round(float(fps) * float(duration)))
        if frames <= 0:
            raise _fail(name, "fps", f"fps x duration = {fps} x {duration} gives no frames")
        return frames
    if isinstance(scene.get("num_frames"), int) and scene["num_frames"] > 0:
        return int(scene["num_frames"])
    rels = scene.get("relationships")
    if isinstance(rels, dict):
        for rel in RELATIONS:
            if rel in rels and len(rels[rel]) > 0:
                return len(rels[rel])
    raise _fail(name, "fps", "no frame count: give fps and duration (or num_frames)")


def _keyframe_sequence(keys: list[int], values: list[int], num_frames: int) -> np.ndarray:
    """A value per frame (0-based) from key frames (1-based, as the release writes them).

    Between two key frames the attribute is interpolated; a frame shows the earlier key's value up to
    and including the midpoint of the interval and the later key's value after it (the scene builder's
    rule, builders.cyclist.state). Before the first and after the last key frame the nearest key's
    value holds. A frame listed twice keeps its last entry (as Blender overwrites key frames).
    """
    last: dict[int, int] = {}
    for k, v in zip(keys, values, strict=True):
        last[k] = v
    keys, values = sorted(last), [last[k] for k in sorted(last)]
    order = np.argsort(np.asarray(keys, dtype=np.int64), kind="stable")
    kf = np.asarray(keys, dtype=np.float64)[order]
    vals = np.asarray(values, dtype=np.int16)[order]
    t = np.arange(1, num_frames + 1, dtype=np.float64)
    k0 = np.clip(np.searchsorted(kf, t, side="right") - 1, 0, len(kf) - 1)
    k1 = np.minimum(k0 + 1, len(kf) - 1)
    span = kf[k1] - kf[k0]
    u = np.where(span > 0, (t - kf[k0]) / np.where(span > 0, span, 1.0), 0.0)
    return np.where(u > 0.5, vals[k1], vals[k0])


def _int_field(value: Any, scene: str, field_name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise _fail(scene, field_name, f"expected an integer, got {value!r}")
    if int(value) < minimum:
        raise _fail(scene, field_name, f"expected an integer >= {minimum}, got {value!r}")
    return int(value)


class SceneState:
    """Everything the question engine needs from one scene, per frame where it changes.

    Attributes: `name`, `num_frames`, `objects` (SceneObject list), `color_codes` / `size_codes`
    (int arrays (N, F) indexing COLORS / SIZES), `rel_ever` / `rel_always` (dict relation -> bool
    (N, N), [i, j] = "j is <rel> of i" in some / every frame), `split`, `tier`, `video_filename`,
    `video_index`.
    """

    def __init__(self, scene: dict[str, Any], name: str = "<scene>") -> None:
        if not isinstance(scene, dict):
            raise _fail(name, "<root>", "a scene must be a JSON object")
        self.name = name
        self.scene = scene
        self.num_frames = num_frames_of(scene, name)
        self.colors = tuple(scene["colors"]) if isinstance(scene.get("colors"), dict) else COLORS
        self.sizes = tuple(scene["sizes"]) if isinstance(scene.get("sizes"), dict) else SIZES
        self._color_id = {c: i for i, c in enumerate(COLORS)}
        self._size_id = {s: i for i, s in enumerate(SIZES)}
        raw_objects = scene.get("objects")
        if not isinstance(raw_objects, list) or not raw_objects:
            raise _fail(name, "objects", "expected a non-empty list of objects")
        self.objects = [self._read_object(i, o) for i, o in enumerate(raw_objects)]
        n = len(self.objects)
        for obj in self.objects:
            orbit = obj.cycles.get("orbit")
            if orbit is not None and not (0 <= orbit.center < n and orbit.center != obj.index):
                raise _fail(name, f"objects[{obj.index}].center", f"no such centre object {orbit.center}")
        self.color_codes = np.empty((n, self.num_frames), dtype=np.int16)
        self.size_codes = np.empty((n, self.num_frames), dtype=np.int16)
        for obj in self.objects:
            self._fill_attribute_frames(obj, raw_objects[obj.index])
        self._summarise_attributes()
        self.rel_ever, self.rel_always = self._read_relations(scene)
        self.split = str(scene.get("split", "train"))
        self.video_filename = str(
            scene.get("video_file")
            or scene.get("video_filename")
            or f"{self.split}_{scene.get('scene_index', 0)}.mp4"
        )
        self.video_index = self._video_index(scene)
        self.tier = self._tier(scene)

    # ----- objects -------------------------------------------------------------------------------
    def _read_object(self, index: int, raw: Any) -> SceneObject:
        where = f"objects[{index}]"
        if not isinstance(raw, dict):
            raise _fail(self.name, where, "expected an object")
        shape = str(raw.get("mesh", raw.get("shape", ""))).lower()
        if shape not in SHAPES:
            raise _fail(
                self.name, f"{where}.mesh", f"unknown mesh {raw.get('mesh')!r} (expected one of {SHAPES})"
            )
        material = _MATERIAL_ALIASES.get(str(raw.get("material", "")).lower())
        if material is None:
            raise _fail(self.name, f"{where}.material", f"unknown material {raw.get('material')!r}")
        size, color = raw.get("size"), raw.get("color")
        if size not in SIZES:
            raise _fail(self.name, f"{where}.size", f"unknown size {size!r} (expected one of {SIZES})")
        if color not in COLORS:
            raise _fail(self.name, f"{where}.color", f"unknown color {color!r} (expected one of {COLORS})")
        loc = raw.get("location")
        if not isinstance(loc, dict) or not all(isinstance(loc.get(k), (int, float)) for k in ("x", "y")):
            raise _fail(self.name, f"{where}.location", "expected {x, y[, z]} numbers")
        cycles_raw = raw.get("cycles") or {}
        if not isinstance(cycles_raw, dict):
            raise _fail(self.name, f"{where}.cycles", "expected an object of cycle type -> {period, states}")
        obj = SceneObject(index, shape, material, size, color)
        for kind, spec in cycles_raw.items():
            obj.cycles[kind] = self._read_cycle(obj, raw, kind, spec, f"{where}.cycles.{kind}")
        return obj

    def _read_cycle(self, obj: SceneObject, raw: dict, kind: str, spec: Any, where: str) -> Cycle:
        if kind not in CYCLE_TYPES:
            raise _fail(self.name, where, f"unknown cycle type (expected one of {CYCLE_TYPES})")
        if not isinstance(spec, dict):
            raise _fail(self.name, where, "expected {period, states}")
        period = _int_field(spec.get("period"), self.name, f"{where}.period")
        states = spec.get("states")
        if not isinstance(states, list) or not states:
            raise _fail(self.name, f"{where}.states", "expected a non-empty list")
        cycle = Cycle(kind, period)
        if kind == "orbit":
            cycle.center = _int_field(raw.get("center"), self.name, f"objects[{obj.index}].center", 0)
            direction = raw.get("orbit_direction")
            if direction not in DIRECTIONS:
                raise _fail(
                    self.name, f"objects[{obj.index}].orbit_direction", f"expected one of {DIRECTIONS}"
                )
            cycle.direction = direction
        if kind in MOTION_CYCLES and len(states) < self.num_frames:
            raise _fail(self.name, f"{where}.states", f"{len(states)} states for {self.num_frames} frames")
        return cycle

    def _fill_attribute_frames(self, obj: SceneObject, raw: dict) -> None:
        where = f"objects[{obj.index}].cycles"
        recolor = obj.cycles.get("recolor")
        if recolor is None:
            self.color_codes[obj.index] = self._color_id[obj.color]
        else:
            states = raw["cycles"]["recolor"]["states"]
            keys, vals = [], []
            for k, s in enumerate(states):
                if not isinstance(s, dict) or s.get("color") not in COLORS:
                    raise _fail(self.name, f"{where}.recolor.states[{k}].color", f"unknown color {s!r}")
                keys.append(_int_field(s.get("frame"), self.name, f"{where}.recolor.states[{k}].frame", 0))
                vals.append(self._color_id[s["color"]])
            seq = _keyframe_sequence(keys, vals, self.num_frames)
            self.color_codes[obj.index] = seq
            recolor.values = _initial_and_target(seq, COLORS)
        resize = obj.cycles.get("resize")
        if resize is None:
            self.size_codes[obj.index] = self._size_id[obj.size]
        else:
            seq = self._resize_sequence(obj, raw, f"{where}.resize.states")
            self.size_codes[obj.index] = seq
            resize.values = _initial_and_target(seq, SIZES)

    def _resize_sequence(self, obj: SceneObject, raw: dict, where: str) -> np.ndarray:
        """Sizes per frame from resize key frames: either named sizes ({"size", "frame"}) or the
        release's scale factors, each relative to the previous key, so their running product is the
        scale relative to the initial size (as the release and builders.cyclist.state read them)."""
        states = raw["cycles"]["resize"]["states"]
        initial = self._size_id[obj.size]
        other = self._size_id.get(raw.get("intermittent_size"), 1 - initial)
        by_frame: dict[int, Any] = {}
        for k, s in enumerate(states):
            if not isinstance(s, dict):
                raise _fail(self.name, f"{where}[{k}]", "expected {factor|size, frame}")
            by_frame[_int_field(s.get("frame"), self.name, f"{where}[{k}].frame", 0)] = (k, s)
        keys, vals, factors = [], [], []
        for frame in sorted(by_frame):
            k, s = by_frame[frame]
            keys.append(frame)
            if "size" in s:
                if s["size"] not in SIZES:
                    raise _fail(self.name, f"{where}[{k}].size", f"unknown size {s['size']!r}")
                vals.append(self._size_id[s["size"]])
                continue
            f = s.get("factor")
            if isinstance(f, bool) or not isinstance(f, (int, float)) or f <= 0:
                raise _fail(self.name, f"{where}[{k}].factor", f"expected a positive number, got {f!r}")
            factors.append(float(f))
        if factors:
            scales = np.cumprod(factors).tolist()
            vals = [initial if math.isclose(s, 1.0, rel_tol=1e-3) else other for s in scales]
        return _keyframe_sequence(keys, vals, self.num_frames)

    def _summarise_attributes(self) -> None:
        """Per object: the set of colours / sizes shown in at least one frame, and the colour / size
        shown in every frame (None when it changes), as plain Python values for fast lookups."""
        for codes, names, prefix in ((self.color_codes, COLORS, "color"), (self.size_codes, SIZES, "size")):
            present = (codes[:, :, None] == np.arange(len(names))[None, None, :]).any(axis=1).tolist()
            constant = (codes == codes[:, :1]).all(axis=1).tolist()
            first = codes[:, 0].tolist()
            setattr(
                self,
                f"{prefix}_ever",
                [frozenset(names[k] for k, p in enumerate(row) if p) for row in present],
            )
            setattr(
                self,
                f"{prefix}_always",
                [names[f] if c else None for f, c in zip(first, constant, strict=True)],
            )

    # ----- relations -----------------------------------------------------------------------------
    def _read_relations(self, scene: dict) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        n, frames = len(self.objects), self.num_frames
        rels = scene.get("relationships")
        if not isinstance(rels, dict):
            if "directions" in scene:
                return self._relations_from_locations(scene)
            raise _fail(self.name, "relationships", "missing (and no `directions` to compute them from)")
        ever, always = {}, {}
        for rel in RELATIONS:
            per_frame = rels.get(rel)
            if isinstance(per_frame, dict):
                lists = list(per_frame.values())
            elif isinstance(per_frame, list):
                lists = per_frame
            else:
                raise _fail(self.name, f"relationships.{rel}", "expected frame -> list of [i, j] pairs")
            if len(lists) != frames:
                raise _fail(self.name, f"relationships.{rel}", f"{len(lists)} frames, expected {frames}")
            try:
                flat = np.fromiter(chain.from_iterable(chain.from_iterable(lists)), dtype=np.int64)
            except (TypeError, ValueError):
                raise _fail(self.name, f"relationships.{rel}", "pairs must be [i, j] integer lists") from None
            if flat.size % 2 or (flat.size and (flat.min() < 0 or flat.max() >= n)):
                raise _fail(self.name, f"relationships.{rel}", f"pairs must index objects 0..{n - 1}")
            counts = np.bincount(flat[0::2] * n + flat[1::2], minlength=n * n).reshape(n, n)
            ever[rel], always[rel] = counts > 0, counts >= frames
        return ever, always

    def _relations_from_locations(self, scene: dict) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Fallback for scenes without `relationships`: the release's rule (unit displacement from i to
        j dotted with the relation's direction > relationship_threshold) on per-frame locations."""
        locs = frame_locations(scene, self)
        threshold = float(scene.get("relationship_threshold", 0.5))
        diff = locs[:, None, :, :] - locs[:, :, None, :]  # [f, i, j] = loc_j - loc_i
        norm = np.linalg.norm(diff, axis=-1, keepdims=True)
        unit = diff / np.where(norm > 0, norm, 1.0)
        ever, always = {}, {}
        eye = np.eye(len(self.objects), dtype=bool)
        for rel in RELATIONS:
            direction = scene["directions"].get(rel)
            if not isinstance(direction, (list, tuple)) or len(direction) < 2:
                raise _fail(self.name, f"directions.{rel}", "expected a vector [x, y, z]")
            holds = (unit[..., 0] * direction[0] + unit[..., 1] * direction[1]) > threshold
            holds &= ~eye
            ever[rel], always[rel] = holds.any(axis=0), holds.all(axis=0)
        return ever, always

    # ----- metadata ------------------------------------------------------------------------------
    def _video_index(self, scene: dict) -> int:
        if isinstance(scene.get("scene_index"), int):
            return int(scene["scene_index"])
        stem = self.video_filename.rsplit(".", 1)[0].rsplit("_", 1)[-1]
        return int(stem) if stem.isdigit() else 0

    def _tier(self, scene: dict) -> str:
        """The scene's tier: its `tier` field, else inferred from the release's settings (cyclic lights:
        L5 Nightrider; otherwise by number of cycles, which several may share an object: 1 with >= 4
        clutter objects: L2)."""
        if scene.get("tier"):
            return str(scene["tier"])
        cycles = sum(len(o.cycles) for o in self.objects)
        clutter = sum(1 for o in self.objects if not o.cycles)
        if (
            scene.get("cyclic_lights")
            or isinstance(scene.get("lights"), dict)
            and "period" in scene["lights"]
        ):
            return "L5"
        if cycles <= 1:
            return "L2" if clutter >= 4 else "L1"
        return "L3" if cycles == 2 else "L4"


def _initial_and_target(seq: np.ndarray, names: tuple[str, ...]) -> tuple[str, ...]:
    """(initial value, first different value) of a per-frame attribute sequence; (initial,) if it never
    changes within the video."""
    first = int(seq[0])
    changed = np.nonzero(seq != first)[0]
    if changed.size == 0:
        return (names[first],)
    return names[first], names[int(seq[changed[0]])]


def frame_locations(scene: dict, state: SceneState) -> np.ndarray:
    """(F, N, 2) object positions per frame: motion-cycle states where an object moves, else its
    static location."""
    frames, objects = state.num_frames, scene["objects"]
    locs = np.empty((frames, len(objects), 2), dtype=np.float64)
    for i, raw in enumerate(objects):
        cycles = raw.get("cycles") or {}
        kind = next((k for k in MOTION_CYCLES if k in cycles), None)
        if kind is None:
            locs[:, i] = (raw["location"]["x"], raw["location"]["y"])
        else:
            states = cycles[kind]["states"][:frames]
            locs[:, i] = [(s["location"]["x"], s["location"]["y"]) for s in states]
    return locs


def frame_relations(scene: dict, state: SceneState) -> dict[str, np.ndarray]:
    """(F, N, N) boolean per relation, [f, i, j] = "j is <rel> of i at frame f", from `relationships`."""
    n = len(state.objects)
    out = {}
    for rel in RELATIONS:
        per_frame = scene["relationships"][rel]
        if isinstance(per_frame, dict):
            lists = [per_frame[k] for k in sorted(per_frame, key=int)]
        else:
            lists = per_frame
        arr = np.zeros((state.num_frames, n, n), dtype=bool)
        for f, pairs in enumerate(lists):
            for i, j in pairs:
                arr[f, i, j] = True
        out[rel] = arr
    return out
