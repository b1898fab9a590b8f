"""Scene sampling with validation and backtracking (paper Sec. 2.1-2.5).

Clutter objects are placed first, then cyclic objects (non-orbiting before orbiting ones, so that every
orbit finds a center). Each candidate is checked against the bounds and the placed objects at its first
frame, then over every frame. A violation resamples the offending property (position, switch point, or
orbit radius and angle) up to `max_number_of_tries`, then regenerates the object up to `max_object_tries`,
then backtracks to the previous object; past `max_backtracks` the seed fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .config import SceneSettings
from .constants import COLORS_255, MATERIALS, MESHES, SIZES
from .periods import choose_period

TOLERANCE = 1e-4  # extra clearance so rounding to 6 decimals in the JSON never undercuts a margin


@dataclass
class SampledObject:
    """One placed object: its attributes, cycle parameters and ground-plane trajectory (T, 2)."""

    mesh: str
    material: str
    size: str
    color: str
    angle: float
    cycles: dict[str, dict] = field(default_factory=dict)
    start: np.ndarray = field(default_factory=lambda: np.zeros(2))
    traj: np.ndarray = field(default_factory=lambda: np.zeros((1, 2)))

    @property
    def moves(self) -> bool:
        """Whether its ground position changes over time (a linear or orbit cycle)."""
        return "linear" in self.cycles or "orbit" in self.cycles


@dataclass
class SampleStats:
    """How hard a scene was to validate: resampled properties, regenerated objects, backtracks."""

    property_resamples: int = 0
    object_regenerations: int = 0
    backtracks: int = 0


class SceneFailed(RuntimeError):
    """A seed that exceeded the backtracking limit (the build counts it and moves to the next seed)."""


def triangle(cycle_frame: np.ndarray, period: int) -> np.ndarray:
    """0 at the cycle start, 1 at mid-cycle, back to 0: constant-speed out-and-back weight."""
    return 1.0 - np.abs(1.0 - 2.0 * cycle_frame / period)


class SceneSampler:
    """Samples one scene's objects for a plan with a given random generator."""

    def __init__(self, settings: SceneSettings, rng: np.random.Generator):
        self.s = settings
        self.rng = rng
        self.T = settings.number_of_frames
        self.t = np.arange(self.T)
        self.lo = np.array([settings.min_x, settings.min_y]) + settings.boundary_margin
        self.hi = np.array([settings.max_x, settings.max_y]) - settings.boundary_margin
        self.factors = settings.factor_range()
        self.stats = SampleStats()
        # first positions, all trajectories and movers' trajectories of the objects placed so far
        self._placed_arrays: tuple = (None, None, None)
        self._phases: dict[int, np.ndarray] = {}

    # -- sampling of properties -------------------------------------------------------------------
    def _point(self) -> np.ndarray:
        return self.lo + (self.hi - self.lo) * self.rng.random(2)

    def _period(self) -> int:
        return choose_period(self.rng, self.T, *self.factors)

    def _new_object(self, cycle_types: tuple[str, ...], placed: list[SampledObject]) -> SampledObject:
        rng = self.rng
        meshes = [m for m in MESHES if m != "Sphere"] if "rotate" in cycle_types else list(MESHES)
        size = str(rng.choice(list(SIZES)))  # a resizing object starts small or large, as in the release
        obj = SampledObject(
            mesh=str(rng.choice(meshes)),
            material=str(rng.choice(MATERIALS)),
            size=size,
            color=str(rng.choice(list(COLORS_255))),
            angle=float(rng.uniform(0.0, 2.0 * np.pi)),
        )
        for kind in cycle_types:
            params: dict = {"period": self._period()}
            if kind == "recolor":
                params["to"] = str(rng.choice([c for c in COLORS_255 if c != obj.color]))
            elif kind == "resize":
                params["to"] = next(z for z in SIZES if z != obj.size)
            elif kind == "orbit":
                params["center"] = int(rng.integers(0, len(placed)))
                params["direction"] = float(rng.choice([-1.0, 1.0]))
            obj.cycles[kind] = params
        obj.start = self._point()
        if "linear" in obj.cycles:
            obj.cycles["linear"]["switch"] = self._point()
        if "orbit" in obj.cycles:
            self._resample_orbit(obj, placed)
        return obj

    def _resample_orbit(self, obj: SampledObject, placed: list[SampledObject]) -> None:
        orbit = obj.cycles["orbit"]
        center = placed[orbit["center"]]
        r_lo = max(2.0 * SIZES[center.size], self.s.minimum_distance + TOLERANCE)
        orbit["radius"] = float(self.rng.uniform(r_lo, max(r_lo, self.s.orbit_radius_max)))
        orbit["initial_angle"] = float(self.rng.uniform(0.0, 2.0 * np.pi))

    # -- trajectories and checks ------------------------------------------------------------------
    def _phase(self, period: int) -> np.ndarray:
        """2 pi (t mod period) / period for every frame, memoised per period (orbits are retried often)."""
        phase = self._phases.get(period)
        if phase is None:
            phase = self._phases[period] = 2.0 * np.pi * (self.t % period) / period
        return phase

    def _trajectory(self, obj: SampledObject, placed: list[SampledObject]) -> np.ndarray:
        if "linear" in obj.cycles:
            c = obj.cycles["linear"]
            w = triangle(self.t % c["period"], c["period"])
            return obj.start + w[:, None] * (c["switch"] - obj.start)
        if "orbit" in obj.cycles:
            c = obj.cycles["orbit"]
            ang = c["initial_angle"] + c["direction"] * self._phase(c["period"])
            out = np.empty((self.T, 2))
            np.cos(ang, out=out[:, 0])
            np.sin(ang, out=out[:, 1])
            out *= c["radius"]
            out += placed[c["center"]].traj
            return out
        return np.broadcast_to(obj.start, (self.T, 2))

    def _violation(self, obj: SampledObject, placed: list[SampledObject]) -> str | None:
        """None when valid; else the property to resample ('position', 'switch' or 'orbit')."""
        d2 = (self.s.minimum_distance + TOLERANCE) ** 2
        moving = "position"
        if "orbit" in obj.cycles:
            moving = "orbit"
        elif "linear" in obj.cycles:
            moving = "switch"
        traj = self._trajectory(obj, placed)
        first = traj[0]
        if (first < self.lo).any() or (first > self.hi).any():
            return "orbit" if moving == "orbit" else "position"
        if placed:
            firsts, every, movers = self._placed_arrays
            if (((firsts - first) ** 2).sum(-1) < d2).any():
                return "orbit" if moving == "orbit" else "position"
            # Two static objects keep their first-frame distance: only pairs with a mover need every frame.
            others = every if obj.moves else movers
            if others is not None and (((others - traj) ** 2).sum(-1) < d2).any():
                return moving
        if obj.moves and ((traj < self.lo).any() or (traj > self.hi).any()):
            return moving
        obj.traj = np.ascontiguousarray(traj)
        return None

    def _place(self, cycle_types: tuple[str, ...], placed: list[SampledObject]) -> SampledObject | None:
        movers = [p.traj for p in placed if p.moves]
        self._placed_arrays = (  # fixed while this object is placed: built once, not per try
            np.array([p.traj[0] for p in placed]) if placed else None,
            np.stack([p.traj for p in placed]) if placed else None,
            np.stack(movers) if movers else None,
        )
        for obj_try in range(self.s.max_object_tries):
            if obj_try:
                self.stats.object_regenerations += 1
            obj = self._new_object(cycle_types, placed)
            for _ in range(self.s.max_number_of_tries):
                bad = self._violation(obj, placed)
                if bad is None:
                    return obj
                self.stats.property_resamples += 1
                if bad == "position":
                    obj.start = self._point()
                elif bad == "switch":
                    obj.cycles["linear"]["switch"] = self._point()
                else:
                    self._resample_orbit(obj, placed)
        return None

    def sample(self, clutter: tuple[int, int], cyclic: tuple[tuple[str, ...], ...]) -> list[SampledObject]:
        """Place `clutter` (min, max) static objects then the cyclic ones; raises SceneFailed."""
        n_clutter = int(self.rng.integers(clutter[0], clutter[1] + 1))
        groups = [g for g in cyclic if "orbit" not in g] + [g for g in cyclic if "orbit" in g]
        specs: list[tuple[str, ...]] = [()] * n_clutter + groups
        if not n_clutter and groups and "orbit" in groups[0]:
            raise SceneFailed("an orbit needs a center object, but the scene has no other object before it")
        placed: list[SampledObject] = []
        while len(placed) < len(specs):
            obj = self._place(specs[len(placed)], placed)
            if obj is not None:
                placed.append(obj)
                continue
            if not placed or self.stats.backtracks >= self.s.max_backtracks:
                raise SceneFailed(
                    f"object {len(placed)} of {len(specs)} could not be placed after {self.stats.backtracks} "
                    "backtracks"
                )
            placed.pop()
            self.stats.backtracks += 1
        return placed
