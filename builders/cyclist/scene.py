"""One scene end to end: seeds, sampling with failure retries, the release's scene JSON, relations."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from .camera import directions, sample_rig
from .config import SPLITS, TIERS, ScenePlan, SceneSettings
from .constants import CYCLE_TYPES, SIZES, release_colors
from .relations import relationships
from .sampler import SampledObject, SampleStats, SceneFailed, SceneSampler
from .state import frame_states

DIGITS = 6


class SceneGenerationError(RuntimeError):
    """Every seed of a scene failed validation: the message names the scene and the reason."""


@dataclass
class SceneResult:
    """A generated scene: its JSON dict, the failed seeds before it, and the validation effort."""

    scene: dict
    failed_seeds: int
    stats: SampleStats


def scene_stem(split: str, index: int) -> str:
    """The release's file stem of a scene: `{split}_{index}` (scene `_config.json`, video `.mp4`)."""
    return f"{split}_{index}"


def scene_rng(seed: int, plan: ScenePlan, attempt: int) -> np.random.Generator:
    """Independent, order-free random stream per (seed, tier, split, scene index, attempt)."""
    tier_code = list(TIERS).index(plan.tier)
    split_code = SPLITS.index(plan.split) if plan.split in SPLITS else 99
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence([seed, tier_code, split_code, plan.index, attempt]))
    )


def _r(x: float) -> float:
    return round(float(x), DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0 so the bytes do not depend on sign noise


def _loc_states(traj: np.ndarray) -> list[dict]:
    rounded = np.round(traj, DIGITS).tolist()
    return [{"frame": t + 1, "location": {"x": x + 0.0, "y": y + 0.0}} for t, (x, y) in enumerate(rounded)]


def _keyframes(key: str, first, mid, last, T: int, period: int, start: dict | None = None) -> list[dict]:
    out = [start] if start else []
    for f in range(1, T + 1, period):
        if first is not None:
            out.append({"frame": f, key: first})
        out.append({"frame": f + period // 2, key: mid})
        out.append({"frame": f + period, key: last})
    return out


def _object_json(obj: SampledObject, T: int) -> dict:
    size = SIZES[obj.size]
    rec: dict = {
        "mesh": obj.mesh,
        "material": obj.material,
        "size": obj.size,
        "color": obj.color,
        "angle": _r(obj.angle),
        "location": {"x": _r(obj.traj[0, 0]), "y": _r(obj.traj[0, 1]), "z": size},
    }
    if not obj.cycles:
        return rec
    cycles: dict = {}
    t = np.arange(T)
    for kind, c in obj.cycles.items():
        period = int(c["period"])
        if kind in ("linear", "orbit"):
            states = _loc_states(obj.traj)
        elif kind == "rotate":
            ang = np.round(2.0 * np.pi * (t % period) / period, DIGITS).tolist()
            states = [{"frame": k + 1, "rotation": [a + 0.0, 0.0, 0.0]} for k, a in enumerate(ang)]
        elif kind == "resize":
            up = _r(SIZES[c["to"]] / size)
            states = _keyframes("factor", None, up, _r(1.0 / up), T, period, {"frame": 1, "factor": 1.0})
            rec["intermittent_size"] = c["to"]
        else:  # recolor
            states = _keyframes("color", obj.color, c["to"], obj.color, T, period)
            rec["intermittent_color"] = c["to"]
        cycles[kind] = {"period": period, "states": states}
        if kind == "linear":
            sw = c["switch"]
            rec["intermittent_location"] = {"x": _r(sw[0]), "y": _r(sw[1]), "z": size}
        if kind == "orbit":
            rec["center"] = int(c["center"])
            rec["orbit_direction"] = "clockwise" if c["direction"] < 0 else "counterclockwise"
            rec["orbit_radius"] = _r(c["radius"])
            rec["orbit_initial_angle"] = _r(c["initial_angle"])
    rec["cycles"] = cycles
    return rec


def _light_cycle(rng: np.random.Generator, sampler: SceneSampler, T: int) -> dict:
    period = sampler._period()
    cf = np.arange(T) % period
    inten = np.round(0.5 * np.cos(2.0 * np.pi * cf / period) + 0.5, DIGITS).tolist()
    return {"period": period, "states": [{"frame": k + 1, "intensity": v + 0.0} for k, v in enumerate(inten)]}


def generate_scene(settings: SceneSettings, plan: ScenePlan, seed: int) -> SceneResult:
    """Generate and validate one scene; failed seeds are retried with the next attempt number."""
    T = settings.number_of_frames
    failures, reason = 0, ""
    for attempt in range(settings.max_seed_attempts):
        rng = scene_rng(seed, plan, attempt)
        sampler = SceneSampler(settings, rng)
        try:
            objects = sampler.sample(plan.clutter, plan.cyclic)
        except SceneFailed as exc:
            failures, reason = failures + 1, str(exc)
            continue
        scene = settings.as_args()
        n_clutter = sum(1 for o in objects if not o.cycles)
        scene.update(
            {
                "split": plan.split,
                "scene_index": plan.index,
                "seed": seed,
                "generation_attempt": attempt,
                "tier": plan.tier,
                "base_tier": plan.base_tier,
                "tier_name": TIERS[plan.tier].title,
                "cyclic_lights": plan.cyclic_lights,
                "min_number_of_clutter_objects": plan.clutter[0],
                "max_number_of_clutter_objects": plan.clutter[1],
                "number_of_clutter_objects": n_clutter,
                "colors": release_colors(),
                "sizes": dict(SIZES),
                "objects": [_object_json(o, T) for o in objects],
                "scene_config_file": f"{scene_stem(plan.split, plan.index)}_config.json",
                "video_file": f"{scene_stem(plan.split, plan.index)}.mp4",
                "rendered": False,
            }
        )
        for kind in CYCLE_TYPES:
            scene[f"number_of_{kind}_cycles"] = sum(kind in o.cycles for o in objects)
        jitters = {
            "key": settings.key_light_jitter,
            "fill": settings.fill_light_jitter,
            "back": settings.back_light_jitter,
        }
        scene["camera"] = sample_rig(rng, settings.camera_jitter, jitters)
        scene["directions"] = directions(scene["camera"])
        if plan.cyclic_lights:
            scene["lights"] = _light_cycle(rng, sampler, T)
        states = frame_states(scene)
        for rec, inside in zip(scene["objects"], states.within_bounds.all(axis=1), strict=False):
            rec["always_within_boundaries"] = bool(inside)
        scene["relationships"] = relationships(
            states.position[..., :2], scene["directions"], settings.relationship_threshold
        )
        return SceneResult(scene, failures, sampler.stats)
    raise SceneGenerationError(
        f"scene {scene_stem(plan.split, plan.index)} (tier {plan.tier}, cycles {plan.cyclic}, clutter "
        f"{plan.clutter}): all {settings.max_seed_attempts} seeds failed validation; last reason: {reason}. "
        "Lower --clutter or --minimum-distance, or raise the retry limits"
    )


def dump_scene(scene: dict) -> bytes:
    """Canonical bytes of a scene JSON: sorted keys, compact separators, floats already rounded."""
    return (json.dumps(scene, sort_keys=True, separators=(",", ":"), allow_nan=False) + "\n").encode()
