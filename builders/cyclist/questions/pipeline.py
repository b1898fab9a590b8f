"""Question generation as a build stage: questions (and optional scene-understanding ground truth) from a
folder of CycliST scene JSON files, ours or the public release's, written in the release's layout. The
`cyclist-questions` command (commands.py) and `build cyclist` run it."""

from __future__ import annotations

import json
from pathlib import Path

from harness.api import write_atomic

from ..layout import questions_file, split_dirs
from .generate import answer_summary, generate_questions, iter_scenes
from .ground_truth import scene_ground_truth
from .state import SceneSchemaError, SceneState
from .templates import load_templates


def run_questions(
    scenes: Path,
    out: Path,
    *,
    families: list[str] | None = None,
    seed: int = 0,
    templates: Path | None = None,
    mode: str = "official",
) -> dict:
    """Generate questions for a scene folder (or a list of scene files) and write them to `out` (a .json
    file, or a folder of the release's per-template files; see write_questions)."""

    if isinstance(scenes, (str, Path)) and not Path(scenes).exists():
        raise FileNotFoundError(f"--scenes {scenes}: no such file or folder")
    loaded = load_templates(templates) if templates is not None else None
    result = generate_questions(scenes, families=families, seed=seed, templates=loaded, mode=mode)
    info = result["info"]
    if info["num_scenes"] and not info["num_questions"]:
        raise ValueError(
            f"0 questions for {info['num_scenes']} scenes: no template fits these scenes "
            f"(families {families or 'all'}, mode {mode}); nothing written to {out}"
        )
    write_questions(result, Path(out))
    return result


def write_questions(result: dict, out: Path) -> list[Path]:
    """Write `{info, questions}` to `out`: one file when it ends in .json, else the release's layout in the
    folder `out`: `questions_<template>.json` per template file, each `{info, questions}` with its questions
    (question_index stays unique across the files). Earlier `questions_*.json` files the run did not
    write are removed, so a folder never mixes two runs. Returns the files written."""
    if out.suffix.lower() == ".json":
        write_atomic(out, json.dumps(result))
        return [out]
    by_file: dict[str, list[dict]] = {}
    for q in result["questions"]:
        by_file.setdefault(questions_file(q["template_filename"]), []).append(q)
    written = []
    for name, questions in sorted(by_file.items()):
        info = dict(result["info"], template_file=name, num_questions_in_file=len(questions))
        write_atomic(out / name, json.dumps({"info": info, "questions": questions}))
        written.append(out / name)
    for stale in sorted(out.glob("questions_*.json")):
        if stale.name not in by_file:
            stale.unlink()
    return written


def questions_for_build(
    out: Path, tier: str, split: str, seed: int = 0, shard: tuple[int, int] = (0, 1)
) -> dict | None:
    """What `build cyclist` runs after its scenes: questions for the tier's and split's scenes
    (`out/scenes/<tier>/<split>`), written as the release does (`out/questions/<tier>/<split>/
    questions_<template>.json`). A sharded build (N > 1) skips it (each shard sees only part of the
    scenes); run `build cyclist-questions` once all shards are done. Returns the result or None."""
    dirs = split_dirs(out, tier, split)
    if shard[1] > 1:
        print(
            f"cyclist: shard {shard[0]}/{shard[1]}: questions not generated; after all shards run "
            f"`python -m harness build cyclist-questions --scenes {dirs.scenes} --out {dirs.questions}`"
        )
        return None
    files = sorted(dirs.scenes.glob("*.json"))
    result = run_questions(files, dirs.questions, seed=seed)
    info = result["info"]
    print(f"cyclist: {info['num_questions']} questions for {info['num_scenes']} scenes -> {dirs.questions}")
    print("\n".join(answer_summary(info)))
    return result


def write_ground_truth(scenes: Path, out: Path) -> None:
    """Write {scenes: [scene_ground_truth...], skipped: [...]} for a scene folder."""

    records, skipped = [], []
    for name, scene in iter_scenes(scenes):
        try:
            if isinstance(scene, SceneSchemaError):
                raise scene
            records.append(scene_ground_truth(SceneState(scene, name)))
        except SceneSchemaError as exc:
            skipped.append({"scene": exc.scene, "field": exc.field, "error": exc.problem})
    write_atomic(out, json.dumps({"scenes": records, "skipped": skipped}))
