"""Object selection and task-type assignment (paper Sec. 2.2): by documented rules or by an LLM.

Rules (`rvtbench.selector.rules`), following the paper's criteria for each type:
  - VQA for objects with state changes (colour or size changes),
  - grounding for objects whose position matters (they move or pass another object),
  - segmentation for objects with distinctive extent (mean area >= 2 % of the frame); when no object of the
    scene reaches that area, the largest selected object that would get summary (else the largest selected)
    is the scene's most distinctive extent and gets segmentation (counted as `largest_fallbacks`), so
    small-object scenes (CycliST) still have segmentation,
  - summary otherwise (the object's attributes carry the description); when no object of the scene changes state,
    the selected summary object with the most interactions (relations to other objects) gets VQA, the paper's
    other VQA criterion (counted as `interaction_fallbacks`).
Objects are ranked by interest (events first, then relations, then area); ties break by the seed.
`assign="all"` gives every selected object all four types (small sets that must cover every type).
"""

from __future__ import annotations

import random
from typing import Any

from .facts import ObjectFacts
from .llm_io import ask_json, dt_digest

TASK_TYPES = ("segmentation", "grounding", "vqa", "summary")
SEGMENTATION_AREA = 0.02  # mean mask area (fraction of the frame) that makes an object's extent distinctive


def _mean_area(sampled: dict, i: str) -> float:
    h, w = sampled["metadata"]["resolution"]
    areas = [f["instances"][i]["area"] for f in sampled["frames"] if i in f["instances"]]
    return sum(areas) / len(areas) / (h * w) if areas else 0.0


def rule_type(f: ObjectFacts, area: float) -> str:
    """The task type the rules give one object."""
    if {"changes_color", "changes_size"} & set(f.events):
        return "vqa"
    if any(e.startswith("moves") for e in f.events) or f.passes:
        return "grounding"
    if area >= SEGMENTATION_AREA:
        return "segmentation"
    return "summary"


class RuleSelector:
    """`rvtbench.selector.rules`: ranked selection and rule-based task types (module docstring)."""

    name = "rules"

    def __init__(self, objects_per_video: int = 3, assign: str = "rules"):
        if assign not in ("rules", "all"):
            raise ValueError(f"--assign {assign}: expected 'rules' or 'all'")
        self.objects_per_video, self.assign = objects_per_video, assign
        self.largest_fallbacks = 0
        self.interaction_fallbacks = 0

    def select(
        self, sampled: dict, facts: dict[str, ObjectFacts], rng: random.Random
    ) -> list[tuple[str, list[str]]]:
        """[(instance id, task types)] for the chosen objects, most interesting first."""
        ids = list(facts)
        rng.shuffle(ids)
        ranked = sorted(
            ids, key=lambda i: (-len(facts[i].events), -len(facts[i].relations), -_mean_area(sampled, i))
        )[: self.objects_per_video]
        if self.assign == "all":
            return [(i, list(TASK_TYPES)) for i in ranked]
        out = [(i, [rule_type(facts[i], _mean_area(sampled, i))]) for i in ranked]
        if ranked and all(_mean_area(sampled, i) < SEGMENTATION_AREA for i in facts):
            # The largest summary object (the rules' default type) if any, so grounding and VQA objects stay.
            pool = [i for i, types in out if types == ["summary"]] or ranked
            largest = max(pool, key=lambda i: (_mean_area(sampled, i), i))
            out = [(i, ["segmentation"] if i == largest else types) for i, types in out]
            self.largest_fallbacks += 1
        summaries = [i for i, types in out if types == ["summary"]]
        if len(summaries) > 1 and not any(rule_type(f, 0.0) == "vqa" for f in facts.values()):
            links = {i: len(facts[i].object_links()) for i in summaries}
            busiest = max(summaries, key=lambda i: (links[i], i))
            out = [(i, ["vqa"] if i == busiest else types) for i, types in out]
            self.interaction_fallbacks += 1
        return out


class LLMSelector:
    """`rvtbench.selector.llm`: a registered model ranks objects and picks each one's task type."""

    name = "llm"
    PROMPT = (
        "You are building a video reasoning benchmark from a digital twin of a video.\n{digest}\n\n"
        "Choose up to {n} objects of interest (by their #id) and, for each, the most appropriate task type: "
        "segmentation (distinctive boundaries and parts), grounding (important spatial positioning), summary "
        "(rich semantic attributes or narrative relevance) or vqa (complex interactions or state changes).\n"
        'Answer with JSON only: [{{"id": "<id>", "task_type": "segmentation|grounding|summary|vqa"}}, ...]'
    )

    def __init__(self, model: Any, objects_per_video: int = 3):
        self.model, self.objects_per_video = model, objects_per_video
        self.fallbacks = 0
        self._rules = RuleSelector(objects_per_video)

    def select(
        self, sampled: dict, facts: dict[str, ObjectFacts], rng: random.Random
    ) -> list[tuple[str, list[str]]]:
        """The model's choice, validated; an unusable reply falls back to the rules (counted)."""
        prompt = self.PROMPT.format(digest=dt_digest(sampled), n=self.objects_per_video)
        reply = ask_json(self.model, prompt, sampled["metadata"]["video"])
        picked = []
        if isinstance(reply, list):
            for item in reply:
                if (
                    isinstance(item, dict)
                    and str(item.get("id")) in facts
                    and item.get("task_type") in TASK_TYPES
                ):
                    picked.append((str(item["id"]), [item["task_type"]]))
        if not picked:
            self.fallbacks += 1
            return self._rules.select(sampled, facts, rng)
        return picked[: self.objects_per_video]
