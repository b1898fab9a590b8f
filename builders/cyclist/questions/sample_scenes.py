"""Small scenes in the release's scene JSON schema with known cycles, for tests, benchmarks and demos.

`make_scene` writes exactly what the public release writes (1-based per-frame motion states, key-frame
recolor / resize states with the release's relative scale factors, `relationships[rel][frame]` pairs
(i, j) meaning "j is <rel> of i"), from a compact object list. `random_scene` draws such a scene the
way the paper's tiers do (cyclic objects plus clutter; periods dividing the frame count).
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

SIZE_SCALE = {"small": 0.25, "large": 0.5}
DIRECTIONS = {
    "left": [-1.0, 0.0, 0.0],
    "right": [1.0, 0.0, 0.0],
    "front": [0.0, -1.0, 0.0],
    "behind": [0.0, 1.0, 0.0],
    "above": [0.0, 0.0, 1.0],
    "below": [0.0, 0.0, -1.0],
}


def _orbit_states(spec: dict, centers: np.ndarray, frames: int) -> tuple[list[dict], np.ndarray]:
    period, radius = spec["period"], spec.get("radius", 2.0)
    step = (-1.0 if spec.get("direction", "counterclockwise") == "clockwise" else 1.0) * 2 * math.pi / period
    angle0 = spec.get("angle", 0.0)
    locs = np.empty((frames, 2))
    for f in range(frames):
        a = angle0 + step * (f % period)
        locs[f] = centers[f] + radius * np.array([math.cos(a), math.sin(a)])
    return [
        {"location": {"x": float(x), "y": float(y)}, "frame": f + 1} for f, (x, y) in enumerate(locs)
    ], locs


def _linear_states(spec: dict, start: tuple[float, float], frames: int) -> tuple[list[dict], np.ndarray]:
    period = spec["period"]
    start_a, end = np.asarray(start, float), np.asarray(spec["to"], float)
    locs = np.empty((frames, 2))
    for f in range(frames):
        c = f % period
        frac = c / (period / 2) if c <= period / 2 else 1 - (c - period / 2) / (period / 2)
        locs[f] = start_a + frac * (end - start_a)
    return [
        {"location": {"x": float(x), "y": float(y)}, "frame": f + 1} for f, (x, y) in enumerate(locs)
    ], locs


def make_scene(
    objects: list[dict[str, Any]],
    *,
    fps: int = 32,
    duration: float = 5.0,
    split: str = "test",
    index: int = 0,
    tier: str | None = None,
    threshold: float = 0.5,
) -> dict[str, Any]:
    """A scene dict from object specs {mesh, material, size, color, location: (x, y), cycles: {kind:
    spec}}; cycle specs: orbit {period, center, radius, direction, angle}, linear {period, to},
    rotate {period}, recolor {period, to}, resize {period}. Orbit centres must come earlier in the list."""
    frames = int(round(fps * duration))
    locs = np.empty((frames, len(objects), 2))
    out_objects = [_scene_object(i, spec, locs, frames) for i, spec in enumerate(objects)]
    return {
        "fps": fps,
        "duration": duration,
        "split": split,
        "scene_index": index,
        "video_file": f"{split}_{index}.mp4",
        "tier": tier,
        "relationship_threshold": threshold,
        "colors": {
            c: [0.5, 0.5, 0.5, 1.0]
            for c in ("gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow")
        },
        "sizes": dict(SIZE_SCALE),
        "objects": out_objects,
        "directions": DIRECTIONS,
        "relationships": relationships_from_locations(locs, threshold),
    }


def _scene_object(i: int, spec: dict[str, Any], locs: np.ndarray, frames: int) -> dict[str, Any]:
    """Object `i` in the release's schema, with its cycles' states; its (x, y) per frame go to locs[:, i]."""
    x, y = spec.get("location", (0.0, 0.0))
    obj: dict[str, Any] = {
        "mesh": spec.get("mesh", "Cube"),
        "material": spec.get("material", "Rubber"),
        "size": spec.get("size", "large"),
        "color": spec.get("color", "gray"),
        "location": {"x": float(x), "y": float(y), "z": SIZE_SCALE[spec.get("size", "large")]},
        "angle": float(spec.get("angle", 0.0)),
    }
    locs[:, i] = (x, y)
    cycles: dict[str, Any] = {}
    for kind, c in (spec.get("cycles") or {}).items():
        period = int(c["period"])
        if kind == "orbit":
            states, locs[:, i] = _orbit_states(c, locs[:, c["center"]], frames)
            obj["center"], obj["orbit_direction"] = c["center"], c.get("direction", "counterclockwise")
            obj["location"].update(states[0]["location"])
        elif kind == "linear":
            states, locs[:, i] = _linear_states(c, (x, y), frames)
            obj["intermittent_location"] = {"x": float(c["to"][0]), "y": float(c["to"][1])}
        elif kind == "rotate":
            states = [
                {"rotation": [2 * math.pi * (f % period) / period, 0.0, 0.0], "frame": f + 1}
                for f in range(frames)
            ]
        elif kind == "recolor":
            obj["intermittent_color"] = c["to"]
            states = _recolor_states(obj["color"], c["to"], period, frames)
        elif kind == "resize":
            obj["intermittent_size"] = "small" if obj["size"] == "large" else "large"
            states = _resize_states(obj["size"], obj["intermittent_size"], period, frames)
        else:
            raise ValueError(f"object {i}: unknown cycle kind {kind!r}")
        cycles[kind] = {"period": period, "states": states}
    if cycles:
        obj["cycles"] = cycles
    return obj


def _recolor_states(color: str, to: str, period: int, frames: int) -> list[dict]:
    """Key frames of a recolor cycle: its colour, `to` half a period later, its colour again, each period."""
    states: list[dict] = []
    for base in range(1, frames + 1, period):
        states += [
            {"color": color, "frame": base},
            {"color": to, "frame": base + period // 2},
            {"color": color, "frame": base + period},
        ]
    return states


def _resize_states(size: str, other: str, period: int, frames: int) -> list[dict]:
    """Key frames of a resize cycle as the release writes them: relative scale factors, to `other` and back."""
    ratio = SIZE_SCALE[other] / SIZE_SCALE[size]
    states = [{"factor": 1.0, "frame": 1}]
    for base in range(1, frames + 1, period):
        states += [
            {"factor": ratio, "frame": base + period // 2},
            {"factor": 1 / ratio, "frame": base + period},
        ]
    return states


def relationships_from_locations(locs: np.ndarray, threshold: float = 0.5) -> dict[str, dict[str, list]]:
    """The release's rule per frame: (i, j) is listed under rel when the unit displacement from i to j
    has a dot product above `threshold` with rel's direction."""
    diff = locs[:, None, :, :] - locs[:, :, None, :]
    norm = np.linalg.norm(diff, axis=-1, keepdims=True)
    unit = diff / np.where(norm > 0, norm, 1.0)
    out: dict[str, dict[str, list]] = {}
    n = locs.shape[1]
    for rel, d in DIRECTIONS.items():
        if rel in ("above", "below"):
            out[rel] = {}
            continue
        holds = (unit[..., 0] * d[0] + unit[..., 1] * d[1]) > threshold
        holds &= ~np.eye(n, dtype=bool)[None]
        out[rel] = {
            str(f): [[int(i), int(j)] for i, j in zip(*np.nonzero(holds[f]), strict=True)]
            for f in range(len(locs))
        }
    return out


def random_scene(
    rng: random.Random, n_cyclic: int = 1, n_clutter: int = 3, index: int = 0, **kw: Any
) -> dict:
    """A random scene: `n_clutter` static objects then `n_cyclic` objects with one or two random cycles
    (periods 32, 80 or 160 frames, as the release's prime-factor rule gives for 160 frames)."""
    colors = ["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"]
    specs: list[dict[str, Any]] = []
    for i in range(n_clutter + n_cyclic):
        spec = {
            "mesh": rng.choice(["Cube", "Sphere", "Cylinder", "Cone"]),
            "material": rng.choice(["Rubber", "Metal"]),
            "size": rng.choice(["small", "large"]),
            "color": rng.choice(colors),
            "location": (rng.uniform(-5, 5), rng.uniform(-5, 5)),
        }
        if i >= n_clutter:
            kinds = rng.sample(["orbit", "linear", "rotate", "recolor", "resize"], rng.choice([1, 1, 2]))
            if "orbit" in kinds and "linear" in kinds:
                kinds.remove("linear")
            cycles: dict[str, Any] = {}
            for kind in kinds:
                c: dict[str, Any] = {"period": rng.choice([32, 80, 160])}
                if kind == "orbit":
                    c.update(
                        center=rng.randrange(i),
                        radius=rng.uniform(1.0, 3.0),
                        angle=rng.uniform(0, 6.28),
                        direction=rng.choice(["clockwise", "counterclockwise"]),
                    )
                elif kind == "linear":
                    c["to"] = (rng.uniform(-5, 5), rng.uniform(-5, 5))
                elif kind == "recolor":
                    c["to"] = rng.choice([x for x in colors if x != spec["color"]])
                elif kind == "rotate" and spec["mesh"] == "Sphere":
                    spec["mesh"] = "Cube"
                cycles[kind] = c
            spec["cycles"] = cycles
        specs.append(spec)
    return make_scene(specs, index=index, **kw)
