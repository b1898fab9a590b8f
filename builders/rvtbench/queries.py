"""Queries per level and their ground truth (paper eq. 5): sub-tree -> expression -> query, executed on the DT.

For each selected object, task type and level L = 1..4 the reasoning category is chosen first (rotating over
semantic, spatial, temporal so every category x level cell is reached), the object's reasoning tree is built
from relations of that kind only, and the query uses the sub-tree R_{i,L} to its full depth: a chain of L - 1
object relations ending in a leaf (attribute, position or event) at depth L. When the chosen category has no
such chain the next category is tried (counted as `category_fallbacks`). Every candidate is executed on the
DT facts and kept only when exactly one object satisfies it; the others are counted (`rejected_ambiguous`).
Ground truth for segmentation and grounding is the executed expression's referent read from the full DT
(RLE mask and [x, y, w, h] boxes per evaluation frame); VQA and summary answers come from the templates or
the query model.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from harness_metrics import decode_rle, encode_rle

from .facts import ObjectFacts
from .llm_io import ask_json, dt_digest
from .templates import phrase, query_text, vary
from .tree import build_tree, execute, expression_paths, make_expression, subtree

LEVELS = (1, 2, 3, 4)
CATEGORIES = ("semantic", "spatial", "temporal")
MAX_CANDIDATES = 8
TREES_PER_CATEGORY = 4  # differently seeded trees (other relation chains) tried before the next category


class TemplateQueries:
    """`rvtbench.query.templates`: the project's templates (builders/rvtbench/templates.py)."""

    name = "templates"

    def write(
        self, task_type: str, expr: dict, sub: dict, facts: dict, sampled: dict, rng: random.Random
    ) -> tuple[str, str | dict | None, list[str]]:
        """(query, answer or None, categories); a VQA answer is {text, canonical, kind}."""
        query, answer = query_text(task_type, expr, facts, rng)
        return query, answer, list(expr["categories"])


class LLMQueries:
    """`rvtbench.query.llm`: a registered model writes the query (and VQA/summary answer) for a sub-tree.

    The expression the query must express is given to the model, so segmentation and grounding ground
    truth still comes from executing it; an unusable reply falls back to the templates (counted).
    """

    name = "llm"
    PROMPT = (
        "Digital twin of a video:\n{digest}\n\nTask type: {task_type}. Difficulty level: {level} (1-4).\n"
        "Reasoning sub-tree (nodes and edges, root = target object): {tree}\n"
        "The target is exactly: {phrase}.\nWrite an implicit query (do not name the target directly when you can "
        "describe it through its relations) and, for vqa or summary, its answer. Reasoning categories are a "
        'subset of semantic, spatial, temporal. Answer with JSON only: {{"query": "...", "answer": "..." or null, '
        '"categories": ["..."]}}'
    )

    def __init__(self, model: Any):
        self.model = model
        self.fallbacks = 0
        self._templates = TemplateQueries()

    def write(
        self, task_type: str, expr: dict, sub: dict, facts: dict, sampled: dict, rng: random.Random
    ) -> tuple[str, str | None, list[str]]:
        """The model's query; falls back to the templates when the reply lacks what the task type needs."""

        prompt = self.PROMPT.format(
            digest=dt_digest(sampled),
            task_type=task_type,
            level=sub["level"],
            tree=sub["edges"],
            phrase=phrase(expr),
        )
        reply = ask_json(
            self.model, prompt, f"{sampled['metadata']['video']}:{expr['instance']}:{sub['level']}"
        )
        ok = isinstance(reply, dict) and isinstance(reply.get("query"), str) and reply["query"].strip()
        needs_answer = task_type in ("vqa", "summary")
        if ok and needs_answer:
            ok = isinstance(reply.get("answer"), str) and bool(reply["answer"].strip())
        if not ok:
            self.fallbacks += 1
            return self._templates.write(task_type, expr, sub, facts, sampled, rng)
        cats = [c for c in reply.get("categories") or [] if c in CATEGORIES] or list(expr["categories"])
        return reply["query"].strip(), reply["answer"].strip() if needs_answer else None, sorted(set(cats))


def _innermost(expr: dict) -> dict:
    while expr.get("child"):
        expr = expr["child"]
    return expr


def choose_expression(
    sub: dict, root: str, facts: dict[str, ObjectFacts], rng: random.Random, stats: dict | None = None
) -> tuple[dict, list[str]] | None:
    """A unique expression for sub-tree `sub` using its full depth (L - 1 relations and a leaf at depth L).

    Candidates that more than one object satisfies on the DT are rejected and counted in
    stats["rejected_ambiguous"]; None when no candidate is unique.
    """
    paths = [p for p in expression_paths(sub) if len(p) == sub["level"] - 1]
    rng.shuffle(paths)
    for path in paths[:MAX_CANDIDATES]:
        expr = make_expression(sub, path, rng, prefer_event=vary(rng))
        last = _innermost(expr)
        if not (last["attrs"] or last["events"] or last.get("positions")):
            continue  # the chain must end in a leaf at depth L (the level is the sub-tree's depth)
        referents = execute(expr, facts)
        if referents == [root]:
            return expr, referents
        if stats is not None:
            stats["rejected_ambiguous"] = stats.get("rejected_ambiguous", 0) + 1
    return None


def ground_truth(task_type: str, dt: dict, referents: list[str], eval_frames: list[int]) -> dict:
    """Masks (one RLE per evaluation frame, union of the referents) or boxes (a list per frame)."""
    h, w = dt["metadata"]["resolution"]
    frames = {f["timestamp"]: f for f in dt["frames"]}
    if task_type == "segmentation":
        masks = []
        for t in eval_frames:
            union = np.zeros((h, w), dtype=bool)
            for i in referents:
                inst = frames[t]["instances"].get(i)
                if inst is not None:
                    union |= decode_rle(inst["mask"])[0]
            masks.append(encode_rle(union)[0])
        return {"frames": list(eval_frames), "masks": masks}
    boxes = [
        [list(frames[t]["instances"][i]["bbox"]) for i in referents if i in frames[t]["instances"]]
        for t in eval_frames
    ]
    return {"frames": list(eval_frames), "boxes": boxes}


def _shown(target: dict) -> bool:
    """Whether a dense target shows its object on at least one evaluation frame (a mask pixel or a box)."""
    if "boxes" in target:
        return any(target["boxes"])
    return any(decode_rle(m)[0].any() for m in target["masks"])


def _chosen(
    obj: str, level: int, order: list[int], facts: dict, trees: dict, rng: random.Random, stats: dict
) -> tuple[str, dict, dict, list[str]] | None:
    """(category, sub-tree, expression, referents): the first category of `order`, else the next ones."""
    for k, c in enumerate(order):
        category = CATEGORIES[c]
        for variant in range(TREES_PER_CATEGORY):
            key = (obj, category, variant)
            if key not in trees:
                trees[key] = build_tree(obj, facts, rng, category=category)
            sub = subtree(trees[key], level)
            chosen = choose_expression(sub, obj, facts, rng, stats)
            if chosen is not None:
                if k:
                    stats["category_fallbacks"] = stats.get("category_fallbacks", 0) + 1
                return category, sub, chosen[0], chosen[1]
    stats["no_unique_query"] = stats.get("no_unique_query", 0) + 1
    return None


def video_samples(
    dt: dict,
    sampled: dict,
    facts: dict[str, ObjectFacts],
    selection: list[tuple[str, list[str]]],
    writer: Any,
    eval_frames: list[int],
    video_id: str,
    rng: random.Random,
    stats: dict | None = None,
) -> list[dict]:
    """Every sample (the paper's tuple) of one video; query statistics accumulate in `stats`."""
    out = []
    meta = dt["metadata"]
    stats = {} if stats is None else stats
    trees: dict[tuple[str, str, int], dict] = {}
    for n, (obj, types) in enumerate(selection):
        for t, task_type in enumerate(types):
            for level in LEVELS:
                cells = stats.setdefault("cells", {})
                # The category comes first: the one this task type x level has fewest queries of so far
                # (rotation breaks ties), so every category x level cell is reached when the scenes allow.
                order = sorted(
                    range(len(CATEGORIES)),
                    key=lambda c: (
                        cells.get(f"{task_type}|{CATEGORIES[c]}|L{level}", 0),
                        (c - n - t - level) % 3,
                    ),
                )
                chosen = _chosen(obj, level, order, facts, trees, rng, stats)
                if chosen is None:
                    continue
                category, sub, expr, referents = chosen
                query, answer, cats = writer.write(task_type, expr, sub, facts, sampled, rng)
                if task_type in ("segmentation", "grounding"):
                    target = ground_truth(task_type, dt, referents, eval_frames)
                    if not _shown(target):  # nothing to segment or locate on the evaluated frames
                        stats["not_on_eval_frames"] = stats.get("not_on_eval_frames", 0) + 1
                        continue
                else:
                    target = dict(answer) if isinstance(answer, dict) else {"text": answer}
                for c in expr["categories"]:
                    cells[f"{task_type}|{c}|L{level}"] = cells.get(f"{task_type}|{c}|L{level}", 0) + 1
                out.append(
                    {
                        "id": f"{video_id}_o{obj}_{task_type}_L{level}",
                        "video": meta["video"],
                        "video_id": video_id,
                        "dt": f"dt/{video_id}.json",
                        "task_type": task_type,
                        "query": query,
                        "categories": cats,
                        "category": "+".join(cats),
                        "level": level,
                        "object_id": obj,
                        "referents": referents,
                        "unique": referents == [obj],
                        "primary_category": category,
                        "expression": expr,
                        "tree": sub,
                        "answer": target,
                        "width": meta["resolution"][1],
                        "height": meta["resolution"][0],
                        "num_frames": meta["duration"],
                        "fps": meta["fps"],
                    }
                )
    return out
