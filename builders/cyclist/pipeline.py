"""Dataset build loop: plan -> generate -> render -> write, sharded, resumable, streamed to disk, in the
release's kind-first layout (builders/cyclist/layout.py)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.api import read_json_file, resolve_reference, write_atomic

from .config import Composition, SceneSettings, check_feasible, plan_scene
from .layout import SplitDirs, split_dirs
from .plugin import RENDERERS
from .scene import SceneGenerationError, dump_scene, generate_scene, scene_stem

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class BuildJob:
    """One build command: what to build, where, and which part (shard) of it."""

    out: Path
    settings: SceneSettings
    comp: Composition
    split: str
    num_scenes: int
    seed: int = 0
    renderer: str | None = "raster"
    shard: tuple[int, int] = (0, 1)

    @property
    def dirs(self) -> SplitDirs:
        """Where this job's tier and split go under `out`."""
        return split_dirs(self.out, self.comp.tier, self.split)

    def config(self) -> dict:
        """What must match for an existing folder to be extended (renderer and size included)."""
        comp = asdict(self.comp)
        return {
            "builder": "cyclist",
            "version": MANIFEST_VERSION,
            "settings": self.settings.as_args(),
            "composition": comp,
            "split": self.split,
            "seed": self.seed,
            "renderer": self.renderer,
        }


def load_renderer(name: str, settings: SceneSettings):
    """Instantiate a renderer by name ('raster' or 'blender')."""
    if name not in RENDERERS:
        raise ValueError(f"--renderer {name}: unknown renderer; use one of {', '.join(RENDERERS)}")
    cls = resolve_reference(RENDERERS[name], what=f"--renderer {name}")
    return cls(
        width=settings.resolution_width, height=settings.resolution_height, samples=settings.number_of_samples
    )


def check_output_dir(job: BuildJob) -> None:
    """Refuse a folder built with another configuration; the same configuration is extended.

    A tier's splits share one build_config.json (build/<tier>/), so the split is not part of the compared
    configuration. A folder holding a build in the earlier one-tier layout is refused too."""
    if (job.out / "build_config.json").exists():
        raise ValueError(
            f"{job.out} holds a CycliST build in the earlier one-tier layout (build_config.json, scenes/*.json); "
            "builds now write the release's kind-first layout (scenes/<tier>/<split>/...): use a new --out folder"
        )
    cfg_path = job.dirs.build_config
    config = {k: v for k, v in job.config().items() if k != "split"}
    if cfg_path.exists():
        old = {k: v for k, v in read_json_file(cfg_path, "CycliST build config", error=ValueError).items() if k != "split"}
        if old != config:
            diff = sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))
            raise ValueError(
                f"{job.out} holds a CycliST build with another configuration (differs in: {', '.join(diff)}); "
                "use a new --out folder or the same flags to extend it"
            )
    else:
        write_atomic(cfg_path, json.dumps(config, sort_keys=True, indent=1) + "\n")


def build_one(job: BuildJob, index: int, renderer=None) -> dict:
    """Generate, render and write scene `index`; returns its manifest entry. Skips finished scenes."""
    stem = scene_stem(job.split, index)
    dirs = job.dirs
    scene_path = dirs.scenes / f"{stem}_config.json"
    if scene_path.exists():
        scene = read_json_file(scene_path, "CycliST scene file", error=ValueError)
        return dict(scene.get("generation", {}), scene=stem, skipped=True)
    result = generate_scene(job.settings, plan_scene(job.comp, job.split, index, job.seed), job.seed)
    scene = result.scene
    scene["generation"] = dict(asdict(result.stats), failed_seeds=result.failed_seeds)
    if job.renderer:
        renderer = renderer or load_renderer(job.renderer, job.settings)
        masks = renderer.render(scene, dirs.videos / f"{stem}.mp4", fps=job.settings.fps)
        write_atomic(dirs.masks / f"{stem}.json", json.dumps(masks, separators=(",", ":")))
        scene["rendered"] = True
    write_atomic(scene_path, dump_scene(scene))  # written last: its presence marks the scene finished
    return dict(scene["generation"], scene=stem, skipped=False)


def shard_indices(num_scenes: int, shard: tuple[int, int]) -> list[int]:
    """Scene indices of shard K of N (0 <= K < N): every N-th index from K; disjoint, covering."""
    k, n = shard
    if not (n >= 1 and 0 <= k < n):
        raise ValueError(f"--shard {k}/{n}: need 0 <= K < N")
    return list(range(k, num_scenes, n))


def _worker(args: tuple[BuildJob, int]) -> dict:
    job, index = args
    return build_one(job, index)


def write_manifest(job: BuildJob) -> dict:
    """Manifest from every finished scene of the tier and split (so shards merged into one folder agree)."""
    scenes, failures, totals = [], 0, {"property_resamples": 0, "object_regenerations": 0, "backtracks": 0}
    cycle_counts: dict[str, int] = {}
    for path in sorted(job.dirs.scenes.glob("*_config.json")):
        scene = read_json_file(path, "CycliST scene file", error=ValueError)
        gen = scene.get("generation", {})
        failures += int(gen.get("failed_seeds", 0))
        for k in totals:
            totals[k] += int(gen.get(k, 0))
        for obj in scene["objects"]:
            for kind in obj.get("cycles", {}):
                cycle_counts[kind] = cycle_counts.get(kind, 0) + 1
        scenes.append(
            {"scene": path.name[: -len("_config.json")], "video": scene["video_file"], "tier": scene["tier"]}
        )
    manifest = {
        "config": job.config(),
        "counts": {
            "scenes": len(scenes),
            "requested": job.num_scenes,
            "failed_seeds": failures,
            "cycles": cycle_counts,
        },
        "validation": totals,
        "scenes": scenes,
        "digest": hashlib.sha256(json.dumps(scenes, sort_keys=True).encode()).hexdigest(),
    }
    write_atomic(job.dirs.manifest, json.dumps(manifest, sort_keys=True, indent=1) + "\n")
    return manifest


def run_build(job: BuildJob, workers: int = 1, progress: bool = True) -> dict:
    """Build the job's shard into job.out and return the manifest; raises ValueError on bad settings."""
    check_feasible(job.settings, job.comp)
    indices = shard_indices(job.num_scenes, job.shard)
    if job.renderer:
        load_renderer(job.renderer, job.settings)  # fail before any work when the renderer is unusable
    check_output_dir(job)
    from tqdm import tqdm

    bar = tqdm(
        total=len(indices), desc=f"cyclist {job.comp.tier}/{job.split}", unit="scene", disable=not progress
    )
    try:
        if workers <= 1:
            renderer = load_renderer(job.renderer, job.settings) if job.renderer else None
            for index in indices:
                build_one(job, index, renderer)
                bar.update(1)
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=workers) as pool:
                for _ in pool.map(_worker, [(job, i) for i in indices], chunksize=4):
                    bar.update(1)
    except SceneGenerationError as exc:
        raise ValueError(str(exc)) from exc
    finally:
        bar.close()
    return write_manifest(job)
