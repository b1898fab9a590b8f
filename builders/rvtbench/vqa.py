"""VQA questions and answers from the DT facts: attributes, counts, events, relations and yes/no.

Each question has a canonical short answer (what the task's answer-correctness judge compares with: a value,
a number, an event phrase, left/right, yes/no), a full-sentence answer (the reference for BLEU-4, ROUGE-L,
CIDEr-D, BERTScore) and a kind; `ANSWER_VOCABULARY` lists every canonical answer a kind can take given the
DT attribute domain, which is what the `random` baseline draws from (never the evaluated answers).
"""

from __future__ import annotations

import random

from .facts import ATTRIBUTE_ORDER, EVENT_WORDS, ObjectFacts

KINDS = ("attribute", "count", "event", "relation", "order", "yes_no")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_WORD = {"color": "colour"}


def _describe(f: ObjectFacts) -> str:
    adjs = [f.attributes[k] for k in ("size", "color", "material") if k in f.attributes]
    return " ".join(["the", *adjs, f.attributes.get("shape") or f.attributes.get("category") or "object"])


def _base(phrase: str) -> str:
    """'moves to the left' -> 'move to the left' (after 'does')."""
    verb, _, rest = phrase.partition(" ")
    base = {"does": "do", "stays": "stay", "leaves": "leave", "appears": "appear"}.get(
        verb, verb[:-1] if verb.endswith("s") else verb
    )
    return f"{base} {rest}".strip()


def _unique_description(j: str, facts: dict[str, ObjectFacts]) -> bool:
    keys = [k for k in ATTRIBUTE_ORDER if k in facts[j].attributes]
    same = [i for i, f in facts.items() if all(f.attributes.get(k) == facts[j].attributes[k] for k in keys)]
    return same == [j]


def vqa_items(expr: dict, facts: dict[str, ObjectFacts], e: str) -> list[tuple[str, str, str, str]]:
    """Every (kind, question, sentence answer, canonical answer) that can be asked of the expression's root."""
    root = expr["instance"]
    f = facts[root]
    items = []
    for key in [k for k in ATTRIBUTE_ORDER if k in f.attributes and k not in expr["attrs"]]:
        word, value = _WORD.get(key, key), f.attributes[key]
        items.append(
            ("attribute", f"What is the {word} of {e}?", f"The {word} of the object is {value}.", value)
        )
    for key in [k for k in ("color", "shape", "material") if k in f.attributes]:
        n = sum(1 for i, g in facts.items() if i != root and g.attributes.get(key) == f.attributes[key])
        word = _WORD.get(key, key)
        items.append(
            (
                "count",
                f"How many other objects have the same {word} as {e}?",
                f"There {'is' if n == 1 else 'are'} {NUMBER_WORDS[min(n, 10)]} other object{'' if n == 1 else 's'} "
                f"with the same {word}.",
                str(n),
            )
        )
    events = [ev for ev in f.events if ev not in expr["events"]]
    if events:
        items.append(
            (
                "event",
                f"What does {e} do during the video?",
                f"During the video it {EVENT_WORDS[events[0]]}.",
                EVENT_WORDS[events[0]],
            )
        )
    for j, rels in sorted(f.relations.items()):
        side = next((r for r in ("left_of", "right_of") if r in rels), None)
        if side and j != root and _unique_description(j, facts):
            other = _describe(facts[j])
            word = "left" if side == "left_of" else "right"
            items.append(
                (
                    "relation",
                    f"Is {e} to the left or to the right of {other}?",
                    f"It is to the {word} of {other}.",
                    word,
                )
            )
    for ev, t in sorted(f.onsets.items()):
        for j, g in sorted(facts.items()):
            if j == root or not _unique_description(j, facts):
                continue
            for ev2, t2 in sorted(g.onsets.items()):
                if t2 == t:
                    continue
                word = "before" if t < t2 else "after"
                other = f"{_describe(g)} {EVENT_WORDS[ev2]}"
                items.append(
                    (
                        "order",
                        f"Does {e} {_base(EVENT_WORDS[ev])} before or after {other}?",
                        f"It {EVENT_WORDS[ev]} {word} {other}.",
                        word,
                    )
                )
    moving = any(ev.startswith("moves") for ev in f.events)
    items.append(
        (
            "yes_no",
            f"Does {e} move during the video?",
            "Yes, it moves during the video." if moving else "No, it does not move.",
            "yes" if moving else "no",
        )
    )
    return items


def vqa_question(
    expr: dict, facts: dict[str, ObjectFacts], e: str, rng: random.Random
) -> tuple[str, str, str, str]:
    """(kind, question, sentence answer, canonical answer): a kind drawn uniformly among those available."""
    items = vqa_items(expr, facts, e)
    kinds = sorted({it[0] for it in items}, key=KINDS.index)
    kind = rng.choice(kinds)
    return rng.choice([it for it in items if it[0] == kind])


def answer_vocabulary(facts_per_video: list[dict[str, ObjectFacts]]) -> dict[str, list[str]]:
    """Every canonical answer each kind can take, from the attribute values and events of the DTs' objects."""
    values = sorted({v for facts in facts_per_video for f in facts.values() for v in f.attributes.values()})
    most = max((len(facts) for facts in facts_per_video), default=1)
    return {
        "attribute": values,
        "count": [str(n) for n in range(most)],
        "event": sorted(EVENT_WORDS.values()),
        "relation": ["left", "right"],
        "order": ["after", "before"],
        "yes_no": ["no", "yes"],
    }
