"""Generate CycliST questions for a set of scenes, in the public release's questions JSON format.

`generate_questions` reads scene JSON files (or dicts), skips and counts scenes that do not match the
schema (each reported by name and field) and, by default, makes the official question mix: per scene
and family one question, from the family's templates tried in order of how few questions each has so
far (the official `--templates_per_image 1` run per family file), with the official per-template answer
caps. `mode="exhaustive"` instead tries every template once per scene in a seeded random order. It
returns `{info, questions}` where every question carries the release's fields plus family, quantifier,
category, tier, answer type and scene name.
"""

from __future__ import annotations

import gc
import logging
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness.api import read_json_file

from .instantiate import AnswerBalancer, instantiate
from .state import SceneSchemaError, SceneState
from .templates import FAMILIES, Template, load_templates
from .text import render

log = logging.getLogger(__name__)

SceneInput = str | Path | dict[str, Any]
MODES = ("official", "exhaustive")


def iter_scenes(sources: SceneInput | Iterable[SceneInput]) -> Iterator[tuple[str, Any]]:
    """(name, scene dict or SceneSchemaError) for each scene: a folder yields its *.json files sorted by
    name, a file its scene, a dict itself (named by its video file or position)."""
    if isinstance(sources, (str, Path, dict)):
        sources = [sources]
    for pos, src in enumerate(sources):
        if isinstance(src, dict):
            yield str(src.get("video_file") or src.get("scene_config_file") or f"scene[{pos}]"), src
            continue
        path = Path(src)
        if path.is_dir():
            for file in sorted(path.glob("*.json")):
                yield from read_scene_file(file)
        else:
            yield from read_scene_file(path)


def read_scene_file(path: Path) -> Iterator[tuple[str, Any]]:
    """(file name, scene JSON) of one scene file, or (file name, SceneSchemaError) when it cannot be read."""
    try:
        yield path.name, read_json_file(path, "CycliST scene file", error=ValueError)  # regular, bounded
    except ValueError as exc:
        yield path.name, SceneSchemaError(path.name, "<file>", f"cannot read JSON ({exc})")


def select_templates(
    families: Iterable[str] | None, templates: list[Template] | None = None
) -> list[Template]:
    """The templates of the named families (all twelve when None); unknown names raise ValueError."""
    templates = load_templates() if templates is None else templates
    if families is None:
        return templates
    wanted = list(families)
    known = sorted({t.family for t in templates} | set(FAMILIES))
    unknown = [f for f in wanted if f not in known]
    if unknown:
        raise ValueError(f"unknown question families {unknown}; known families: {known}")
    return [t for t in templates if t.family in wanted]


def _question(
    t: Template, state: SceneState, program: list[dict], text: str, answer: Any, index: int
) -> dict:
    return {
        "split": state.split,
        "video_filename": state.video_filename,
        "video_index": state.video_index,
        "video": state.video_filename.rsplit(".", 1)[0],
        "question": text,
        "program": program,
        "answer": answer,
        "template_filename": t.filename,
        "question_family_index": t.index,
        "question_index": index,
        "family": t.family,
        "quantifier": t.quantifier,
        "category": t.category,
        "tier": state.tier,
        "answer_type": t.answer_type,
        "scene": state.name,
    }


def generate_questions(
    scene_paths_or_dicts: SceneInput | Iterable[SceneInput],
    *,
    families: Iterable[str] | None = None,
    seed: int = 0,
    templates: list[Template] | None = None,
    reset_every: int = 1000,
    budget: int = 400,
    mode: str = "official",
) -> dict[str, Any]:
    """Questions for every scene, deterministic for a given seed and scene order.

    `families` restricts to some of the twelve families; `templates` replaces the built-in ones
    (see templates.load_templates); `reset_every` is the balancing window in scenes; `budget`
    bounds the evaluations spent per template per scene; `mode` is "official" (one question per
    family per scene) or "exhaustive" (every template per scene).
    """
    if mode not in MODES:
        raise ValueError(f"unknown question mode {mode!r}; use one of {MODES}")
    chosen = select_templates(families, templates)
    # The scene dicts hold millions of small lists (per-frame relations); the cyclic garbage collector
    # would rescan them on every full collection while we allocate, costing more than the generation.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _generate(scene_paths_or_dicts, chosen, seed, reset_every, budget, mode)
    finally:
        if was_enabled:
            gc.enable()


def _scene_attempts(
    chosen: list[Template], balancer: AnswerBalancer, rng: random.Random, mode: str
) -> Iterator[list[Template]]:
    """The templates to try on one scene, as groups of which at most one gives a question: official
    mode, per family (in family order) its templates by ascending question count (ties in file
    order); exhaustive mode, every template alone, in a seeded random order."""
    if mode == "exhaustive":
        order = list(chosen)
        rng.shuffle(order)
        for t in order:
            yield [t]
        return
    by_family: dict[str, list[Template]] = {}
    for t in chosen:
        by_family.setdefault(t.family, []).append(t)
    for group in by_family.values():
        yield sorted(group, key=lambda t: balancer.template_counts.get(t.key, 0))


def _generate(
    sources: Any, chosen: list[Template], seed: int, reset_every: int, budget: int, mode: str
) -> dict[str, Any]:
    rng = random.Random(seed)
    balancer = AnswerBalancer(reset_every)
    questions: list[dict] = []
    skipped: list[dict] = []
    splits: set[str] = set()
    scenes = 0
    for name, scene in iter_scenes(sources):
        try:
            if isinstance(scene, SceneSchemaError):
                raise scene
            state = SceneState(scene, name)
        except SceneSchemaError as exc:
            log.warning("skipping scene: %s", exc)
            skipped.append({"scene": exc.scene, "field": exc.field, "error": exc.problem})
            continue
        scenes += 1
        splits.add(state.split)
        balancer.new_scene()
        for group in _scene_attempts(chosen, balancer, rng, mode):
            for t in group:
                inst = instantiate(t, state, rng, balancer, budget)
                if inst is None:
                    continue
                text = render(rng.choice(t.text), inst.values, t.params, rng)
                questions.append(_question(t, state, inst.program, text, inst.answer, len(questions)))
                break
    info = {
        "version": "1.0",
        "generator": "harness_builders.cyclist.questions",
        "seed": seed,
        "split": splits.pop() if len(splits) == 1 else sorted(splits),
        "families": sorted({t.family for t in chosen}),
        "mode": mode,
        "reset_every": reset_every,
        "num_scenes": scenes,
        "num_questions": len(questions),
        "num_skipped": len(skipped),
        "skipped": skipped,
        "answer_counts": balancer.totals,
        "answer_counts_per_template": balancer.template_totals,
    }
    return {"info": info, "questions": questions}


def answer_summary(info: dict[str, Any], width: int = 10) -> list[str]:
    """One line per family: its question count and answer distribution (paper Figures 9-12), most
    frequent answers first, `width` at most."""
    lines = []
    for family, counts in sorted(info.get("answer_counts", {}).items()):
        total = sum(counts.values())
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
        shown = ", ".join(f"{_answer_word(a)} {n}" for a, n in ranked[:width])
        more = f", ... ({len(ranked) - width} more)" if len(ranked) > width else ""
        lines.append(f"  {family}: {total} questions; {shown}{more}")
    return lines


def _answer_word(answer: Any) -> str:
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    return str(answer)
