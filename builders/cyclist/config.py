"""Scene settings (the release's CLI arguments), tier presets and the paper's Table 3 split sizes."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import asdict, dataclass, field

from .constants import CYCLE_TYPES, MOTION_CYCLES, TIER_NAMES
from .periods import default_factor_range, possible_periods, prime_factors


@dataclass(frozen=True)
class TierSpec:
    """A tier preset: clutter range, number of cycles (`cyclic_objects`: the paper's Unicycle / Bicycle /
    Tricycle count; the cycles are then assigned to objects, several may share one), light cycle, mixed
    base tiers."""

    name: str
    clutter: tuple[int, int]
    cyclic_objects: int
    cyclic_lights: bool = False
    mix: tuple[str, ...] = ()

    @property
    def folder(self) -> str:
        """The release's folder name of the tier (scenes/<folder>/<split>/, ...)."""
        return TIER_NAMES[self.name][0]

    @property
    def title(self) -> str:
        """The paper's name of the tier."""
        return TIER_NAMES[self.name][1]


TIERS: dict[str, TierSpec] = {
    "L1": TierSpec("L1", (2, 3), 1),
    "L2": TierSpec("L2", (4, 9), 1),
    "L3": TierSpec("L3", (2, 3), 2),
    "L4": TierSpec("L4", (2, 3), 3),
    "L5": TierSpec("L5", (2, 3), 1, True, ("L1", "L3", "L4")),
}

# Paper Table 3: scenes per tier and split.
SPLIT_SIZES: dict[str, dict[str, int]] = {
    "L1": {"train": 1500, "val": 750, "test": 750},
    "L2": {"train": 1500, "val": 750, "test": 750},
    "L3": {"train": 1500, "val": 750, "test": 750},
    "L4": {"train": 1540, "val": 770, "test": 770},
    "L5": {"train": 1360, "val": 680, "test": 680},
}
SPLITS = ("train", "val", "test")
#: bounds on a build's video, refused up front rather than met as a MemoryError (the paper's videos: 160 frames,
#: 1920x1080)
MAX_FRAMES = 10_000
MAX_SIDE = 7680  # 8K UHD


@dataclass(frozen=True)
class SceneSettings:
    """Everything that shapes a scene; written into every scene JSON (the release keeps its CLI args)."""

    number_of_frames: int = 160
    fps: int = 32
    resolution_width: int = 480
    resolution_height: int = 270
    number_of_samples: int = 16
    min_x: float = -5.0
    max_x: float = 5.0
    min_y: float = -5.0
    max_y: float = 5.0
    minimum_distance: float = 1.5
    boundary_margin: float = 0.25
    relationship_threshold: float = 0.5
    orbit_radius_max: float = 4.0
    min_number_of_prime_factors: int | None = None
    max_number_of_prime_factors: int | None = None
    camera_jitter: float = 0.5
    key_light_jitter: float = 1.0
    fill_light_jitter: float = 1.0
    back_light_jitter: float = 1.0
    max_number_of_tries: int = 12  # resamples of the violating property
    max_object_tries: int = 12  # regenerations of a whole object
    max_backtracks: int = 24  # revisits of previous objects before the seed fails
    max_seed_attempts: int = 32  # failed seeds per scene before the build stops with the reason

    def factor_range(self) -> tuple[int, int]:
        """(min, max) number of prime factors per period; defaults drop at most one factor."""
        lo, hi = default_factor_range(self.number_of_frames)
        return (
            self.min_number_of_prime_factors if self.min_number_of_prime_factors is not None else lo,
            self.max_number_of_prime_factors if self.max_number_of_prime_factors is not None else hi,
        )

    def as_args(self) -> dict:
        """The settings as the scene JSON's CLI-argument fields (resolved factor range, duration)."""
        d = asdict(self)
        d["min_number_of_prime_factors"], d["max_number_of_prime_factors"] = self.factor_range()
        d["duration"] = round(self.number_of_frames / self.fps, 6)
        return d


@dataclass(frozen=True)
class ScenePlan:
    """What one scene must contain: its tier, clutter range, cyclic objects' cycle sets, light cycle."""

    split: str
    index: int
    tier: str
    base_tier: str
    clutter: tuple[int, int]
    cyclic: tuple[tuple[str, ...], ...]
    cyclic_lights: bool


@dataclass(frozen=True)
class Composition:
    """Tier or explicit control of what scenes contain (explicit values override the tier preset)."""

    tier: str = "L1"
    clutter: tuple[int, int] | None = None
    cycles: tuple[tuple[str, ...], ...] | None = None
    cyclic_lights: bool | None = None
    extra: dict = field(default_factory=dict)


def parse_cycles(spec: str) -> tuple[tuple[str, ...], ...]:
    """'orbit+recolor,linear' -> (('orbit', 'recolor'), ('linear',)): one group per cyclic object."""
    groups = []
    for part in spec.split(","):
        names = tuple(n.strip() for n in part.split("+") if n.strip())
        bad = [n for n in names if n not in CYCLE_TYPES]
        if not names or bad:
            raise ValueError(
                f"--cycles '{spec}': unknown cycle type(s) {bad or part!r}; use {', '.join(CYCLE_TYPES)}"
            )
        if len(set(names)) != len(names) or sum(n in MOTION_CYCLES for n in names) > 1:
            raise ValueError(
                f"--cycles '{spec}': group '{part}' changes one property twice (linear and orbit both move "
                "the object; each type at most once per object)"
            )
        groups.append(tuple(sorted(names)))
    return tuple(groups)


def tier_combinations(tier: str) -> list[tuple[tuple[str, ...], ...]]:
    """Every cycle-type combination of a tier (multisets of its cycles, one cycle per group before
    assignment), in a fixed order."""
    n = TIERS[tier].cyclic_objects
    return [tuple((c,) for c in combo) for combo in itertools.combinations_with_replacement(CYCLE_TYPES, n)]


def assign_cycles(types: tuple[str, ...], rng: random.Random) -> tuple[tuple[str, ...], ...]:
    """Cycles to objects as the official generator assigns them: with M cycles there are M object
    slots; the orbit cycles take distinct random slots, the linear cycles distinct slots among the rest
    (an object never moves twice), every other type distinct random slots of all M (never two cycles
    of one type, hence of one property, on an object); empty slots are dropped. So two cycles may share
    an object (a Bicycle scene with one object that both orbits and recolours)."""
    m = len(types)
    slots: list[list[str]] = [[] for _ in range(m)]
    counts = {k: types.count(k) for k in CYCLE_TYPES}
    taken_by_motion: set[int] = set()
    for kind in ("orbit", "linear", "resize", "recolor", "rotate"):
        pool = [i for i in range(m) if not (kind in MOTION_CYCLES and i in taken_by_motion)]
        for i in rng.sample(pool, counts[kind]):
            slots[i].append(kind)
            if kind in MOTION_CYCLES:
                taken_by_motion.add(i)
    return tuple(tuple(sorted(s)) for s in slots if s)


def plan_scene(comp: Composition, split: str, index: int, seed: int = 0) -> ScenePlan:
    """The plan of scene `index` of a split: cycle-type combinations assigned round robin, so every
    cycle type and combination is balanced within the split (L5 alternates L1, L3, L4 and balances
    within each), then the cycles assigned to objects (`assign_cycles`, seeded by seed, split, index)."""
    spec = TIERS[comp.tier]
    base, k = comp.tier, index
    if spec.mix:
        base, k = spec.mix[index % len(spec.mix)], index // len(spec.mix)
    if comp.cycles is not None:
        cyclic = comp.cycles
    else:
        combos = tier_combinations(base)
        types = tuple(c for group in combos[k % len(combos)] for c in group)
        cyclic = assign_cycles(types, random.Random(f"cyclist-cycles:{seed}:{split}:{index}"))
    clutter = comp.clutter if comp.clutter is not None else TIERS[base].clutter
    lights = comp.cyclic_lights if comp.cyclic_lights is not None else spec.cyclic_lights
    return ScenePlan(split, index, comp.tier, base, clutter, cyclic, lights)


def check_feasible(settings: SceneSettings, comp: Composition) -> None:
    """Fail fast on settings no seed can satisfy, naming the setting and what to change."""
    s = settings
    if s.number_of_frames < 2 or s.fps <= 0:
        raise ValueError(f"--frames {s.number_of_frames} --fps {s.fps}: need at least 2 frames and fps > 0")
    if s.number_of_frames > MAX_FRAMES:
        raise ValueError(f"--frames {s.number_of_frames}: at most {MAX_FRAMES} frames per video")
    width, height = s.resolution_width, s.resolution_height
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise ValueError(f"--size {width}x{height}: each side must be between 1 and {MAX_SIDE} pixels")
    if not math.isfinite(s.minimum_distance) or s.minimum_distance < 0:
        raise ValueError(f"--minimum-distance {s.minimum_distance}: must be a finite number of at least 0")
    lo, hi = s.factor_range()
    k = len(prime_factors(s.number_of_frames))
    if not (1 <= lo <= hi <= k):
        raise ValueError(
            f"prime factors per period must satisfy 1 <= min <= max <= {k} for {s.number_of_frames} frames"
        )
    if max(possible_periods(s.number_of_frames, lo, hi)) < 2:
        raise ValueError(f"--frames {s.number_of_frames}: no cycle period of at least 2 frames is possible")
    if comp.tier not in TIERS:
        raise ValueError(f"--tier {comp.tier}: unknown tier; use one of {', '.join(TIERS)}")
    if comp.clutter is not None and not (0 <= comp.clutter[0] <= comp.clutter[1]):
        raise ValueError(f"--clutter {comp.clutter}: need 0 <= min <= max")
    width = s.max_x - s.min_x - 2 * s.boundary_margin
    height = s.max_y - s.min_y - 2 * s.boundary_margin
    if width <= 0 or height <= 0:
        raise ValueError(
            f"bounds [{s.min_x}, {s.max_x}] x [{s.min_y}, {s.max_y}] leave no room inside the margin"
        )
    tiers = TIERS[comp.tier].mix or (comp.tier,)
    clutter_max = max((comp.clutter or TIERS[t].clutter)[1] for t in tiers)
    cyclic_max = max(len(comp.cycles) if comp.cycles is not None else TIERS[t].cyclic_objects for t in tiers)
    n = clutter_max + cyclic_max
    d = s.minimum_distance
    # Disks of diameter d around the centres packed into the (margin-shrunk) box grown by d/2 on each side.
    capacity = int(0.9069 * (width + d) * (height + d) / (math.pi * d * d / 4.0))
    if n > capacity:
        raise ValueError(
            f"{n} objects (up to {clutter_max} clutter + {cyclic_max} cyclic) cannot keep "
            f"minimum_distance {d} inside a {width:.2f} x {height:.2f} area (at most {capacity} fit even when "
            "densely packed); lower --clutter or --minimum-distance"
        )
    r_lo = max(2 * 0.25, d)
    if s.orbit_radius_max < r_lo:
        raise ValueError(f"orbit_radius_max {s.orbit_radius_max} is below the smallest valid radius {r_lo}")
