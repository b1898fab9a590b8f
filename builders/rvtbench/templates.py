"""Query and answer templates written for this project (the `rvtbench.query.templates` generator).

A referring expression (tree.make_expression) becomes a noun phrase; each task type wraps it in its own
instruction. VQA asks for a fact of the root that the expression does not use; summary answers describe the
root with the facts of the sub-tree. Everything is deterministic given the expression and the facts.
"""

from __future__ import annotations

import random

from .dt import RELATION_WORDS
from .facts import ATTRIBUTE_ORDER, EVENT_WORDS, POSITION_WORDS, TEMPORAL_RELATION_WORDS, ObjectFacts
from .vqa import vqa_question

REL_WORDS = {**RELATION_WORDS, "passes": "passing"}
# Relations phrased as a verb clause ("that has the same colour as X") rather than "that is <rel> X".
VERB_RELATIONS = {
    **TEMPORAL_RELATION_WORDS,
    "same_color_as": "has the same colour as",
    "same_shape_as": "has the same shape as",
    "same_material_as": "is made of the same material as",
    "same_size_as": "has the same size as",
}
SEG_FORMS = ("Segment {e}.", "Please segment {e} in the video.", "Find and segment {e}.")
GROUND_FORMS = (
    "Locate {e} in every frame.",
    "Give the bounding box of {e}.",
    "Where is {e}? Ground it with boxes.",
)
SUMMARY_FORMS = ("Summarize the video with a focus on {e}.", "Describe what happens to {e} over the video.")


def phrase(expr: dict) -> str:
    """'the small red cone that moves to the left and that is behind the large cube'."""
    attrs = expr["attrs"]
    adjs = [attrs[k] for k in ATTRIBUTE_ORDER if k in attrs and k not in ("shape", "category")]
    noun = attrs.get("shape") or attrs.get("category") or "object"
    text = " ".join(["the", *adjs, noun])
    clauses = [f"that {EVENT_WORDS[e]}" for e in expr["events"]]
    clauses += [f"that {POSITION_WORDS[p]}" for p in expr.get("positions", [])]
    if expr.get("rel"):
        child = phrase(expr["child"])
        rel = expr["rel"]
        clauses.append(
            f"that {VERB_RELATIONS[rel]} {child}"
            if rel in VERB_RELATIONS
            else f"that is {REL_WORDS[rel]} {child}"
        )
    return text + (" " + " and ".join(clauses) if clauses else "")


def query_text(
    task_type: str, expr: dict, facts: dict[str, ObjectFacts], rng: random.Random
) -> tuple[str, str | dict | None]:
    """(query, answer) for one expression: None for segmentation and grounding, the summary text, or for VQA
    {"text": sentence, "canonical": short answer, "kind": question kind} (builders/rvtbench/vqa.py)."""
    e = phrase(expr)
    if task_type == "segmentation":
        return rng.choice(SEG_FORMS).format(e=e), None
    if task_type == "grounding":
        return rng.choice(GROUND_FORMS).format(e=e), None
    if task_type == "vqa":
        kind, question, sentence, canonical = vqa_question(expr, facts, e, rng)
        return question, {"text": sentence, "canonical": canonical, "kind": kind}
    if task_type == "summary":
        return rng.choice(SUMMARY_FORMS).format(e=e), summary_answer(expr, facts)
    raise ValueError(f"unknown task type '{task_type}'")


def summary_answer(expr: dict, facts: dict[str, ObjectFacts]) -> str:
    """A summary of the root and the objects the expression passes through."""
    sentences = []
    node: dict | None = expr
    subject = "The video shows"
    while node is not None:
        f = facts[node["instance"]]
        if node is expr or f.events:
            text = f"{subject} {f.description.rstrip('.')}"
            if f.events:
                text += ", which " + " and ".join(EVENT_WORDS[e] for e in f.events)
            sentences.append(text + ".")
        if node.get("rel") and node.get("child"):
            child = facts[node["child"]["instance"]]
            rel = node["rel"]
            verb = VERB_RELATIONS.get(rel, f"is {REL_WORDS.get(rel, rel)}")
            sentences.append(f"It {verb} {child.description.rstrip('.')}.")
        subject = "There is"
        node = node.get("child")
    return " ".join(sentences)


def vary(rng: random.Random) -> bool:
    """A seeded coin (whether to prefer an event over an attribute for the root)."""
    return rng.random() < 0.5
