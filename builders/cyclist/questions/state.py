"""The question engine's checked view of a CycliST scene JSON (ours or the public release's).

The scene JSON stores motion cycles (orbit, linear, rotate) as a state per frame, attribute cycles
(recolor, resize) as key frames, and `relationships[rel][frame]` as (i, j) pairs meaning "j is <rel>
of i". This module checks the schema (anything that does not match raises SceneSchemaError naming the
scene and the field) and turns the scene into what the engine quantifies over: a colour and a size code
per object per frame, and per relation "holds in at least one frame" / "holds in every frame" matrices.
The per-frame decoding itself (frame count, which key frame a frame shows, resize keys, positions) is
harness_builders.cyclist.state's, the one scene-state decoder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from ..constants import (  # noqa: F401 - re-exported: the question engine's vocabulary
    COLORS,
    CYCLE_TYPES,
    DIRECTIONS,
    MATERIAL_ALIASES,
    MOTION_CYCLES,
    RELATIONS,
    SHAPES,
)
from ..constants import MATERIAL_NAMES as MATERIALS  # noqa: F401 - lower case, re-exported
from ..constants import SIZE_NAMES as SIZES
from ..constants import SIZES as SIZE_SCALES
from ..state import (  # noqa: F401 - SceneSchemaError re-exported (its old home)
    SceneSchemaError,
    keyframes,
    object_locations,
    other_size,
    resize_keys,
    scene_num_frames,
    shown_keyframe,
)


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
        self.num_frames = scene_num_frames(scene, name)
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
        material = MATERIAL_ALIASES.get(str(raw.get("material", "")).lower())
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
            for k, s in enumerate(states):
                if not isinstance(s, dict) or s.get("color") not in COLORS:
                    raise _fail(self.name, f"{where}.recolor.states[{k}].color", f"unknown color {s!r}")
                _int_field(s.get("frame"), self.name, f"{where}.recolor.states[{k}].frame", 0)
            keys = keyframes(states)
            codes = np.array([self._color_id[s["color"]] for s in keys], dtype=np.int16)
            seq = codes[shown_keyframe(np.array([s["frame"] for s in keys], float), self.num_frames)]
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
        """Size codes per frame from resize key frames (named sizes or the release's scale factors; the
        rule is harness_builders.cyclist.state.resize_keys), after checking every key."""
        states = raw["cycles"]["resize"]["states"]
        for k, s in enumerate(states):
            if not isinstance(s, dict):
                raise _fail(self.name, f"{where}[{k}]", "expected {factor|size, frame}")
            _int_field(s.get("frame"), self.name, f"{where}[{k}].frame", 0)
            if "size" in s:
                if s["size"] not in SIZES:
                    raise _fail(self.name, f"{where}[{k}].size", f"unknown size {s['size']!r}")
                continue
            f = s.get("factor")
            if isinstance(f, bool) or not isinstance(f, (int, float)) or f <= 0:
                raise _fail(self.name, f"{where}[{k}].factor", f"expected a positive number, got {f!r}")
        frames, names, _ = resize_keys(states, obj.size, other_size(raw, SIZE_SCALES), SIZE_SCALES)
        codes = np.array([self._size_id[n] for n in names], dtype=np.int16)
        return codes[shown_keyframe(frames, self.num_frames)]

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
    """(F, N, 2) object positions per frame (harness_builders.cyclist.state.object_locations)."""
    where = f"scene {state.name} object"
    locs = [object_locations(raw, state.num_frames, f"{where} {i}") for i, raw in enumerate(scene["objects"])]
    return np.stack(locs, axis=1)
