"""Rule-based object mapping for CycliST scene captions (the judge's fourth case).

A caption becomes a list of objects `{mesh, material, size, color, linear, orbit, rotate, resize,
recolor}` (attributes canonical or "not_mentioned", cycles true/false), as the paper's two-step
scene-understanding pipeline does with its LLM judge. A reply holding a JSON list of such objects is read
directly. Free text is read sentence by sentence: every shape noun (or "object" with attributes) is an
object, the adjectives before it are its attributes, a count word ("two red cones") repeats it, motion
phrases after it (up to the next object) are its cycles, "it"/"the cube" sentences refer back.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness_tasks.cyclist.rule_judge import first_of_overlaps, normalise
from harness_tasks.cyclist.vocab import COLORS, CYCLES, MATERIALS, NUMBER_WORDS, PATTERNS, SHAPES, SIZES

ATTRIBUTES = ("mesh", "material", "size", "color")
NOT_MENTIONED = "not_mentioned"

CYCLE_PATTERNS: dict[str, re.Pattern] = {
    "orbit": re.compile(
        r"\borbit(?!ed by|ed around by)\w*|\brevolv\w*|\bcircl(?:e|es|ing) (?:around|about)|\bcircular (?:path|motion|trajectory|orbit)"
        r"|\bmov\w* in (?:a )?circles?\b|\bgo(?:es|ing)? around\b|\bmov\w* around (?:the|a|an)\b"
        r"|\brotat\w* (?:clockwise |counter-?clockwise |anti-?clockwise )?around (?:the|a|an)\b"
    ),
    "linear": re.compile(
        r"back[\s-]and[\s-]forth|to and fro|straight line|\blinear\w*|\bslid(?:es|ing|e)\b|\btranslat\w*"
        r"|from side to side|\boscillat\w*|\bmov\w* (?:left and right|up and down|forward and backward)"
    ),
    "rotate": re.compile(
        r"\b(?:rotat|spin)\w*(?! (?:clockwise |counter-?clockwise |anti-?clockwise )?around (?:the|a|an)\b)"
    ),
    "resize": re.compile(
        r"\bgrow\w*|\bshrink\w*|\benlarg\w*|\bresiz\w*|\bexpand\w*|\bcontract\w*|\bpulsat\w*|\binflat\w*"
        r"|chang\w* (?:its |in |their )?size|size[\s-]chang\w*|\bgets? (?:bigger|smaller|larger)"
        r"|(?:bigger|larger|smaller) and (?:bigger|larger|smaller)"
    ),
    "recolor": re.compile(
        r"chang\w* (?:its |their |the )?colou?r|colou?r[\s-]chang\w*|\brecolou?r\w*|shift\w* (?:its )?colou?r"
        r"|\bcycles? (?:through|between) colou?rs|colou?r (?:shifts?|transitions?|cycles?)"
        r"|\b(?:turns?|turning|changes?|changing|fades?|fading|alternat\w*) (?:from \w+ )?(?:to|into|between) (?:"
        + "|".join(COLORS)
        + r")"
    ),
}

_VALUE_GROUPS = (("size", SIZES), ("color", COLORS), ("material", MATERIALS))
_GENERIC_RE = re.compile(r"(?<![\w-])(?:objects?|things?|shapes?|items?)(?![\w-])")
_SHAPE_SPANS = [(s, PATTERNS[s]) for s in SHAPES]
_COUNT_WORDS = {w: v for w, v in NUMBER_WORDS.items() if 2 <= v <= 9 and w not in ("twice", "thrice")}


def _empty() -> dict[str, Any]:
    return {**{a: NOT_MENTIONED for a in ATTRIBUTES}, **{c: False for c in CYCLES}}


def _canonical(value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        return NOT_MENTIONED
    v = normalise(value)
    for c in choices:
        if PATTERNS[c].fullmatch(v) or v == c:
            return c
    return NOT_MENTIONED


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes", "1"))


def objects_from_json(data: Any) -> list[dict[str, Any]] | None:
    """Objects from a JSON reply ({"mapped_objects": [...]}, {"objects": [...]} or a list), else None."""
    if isinstance(data, dict):
        data = data.get("mapped_objects", data.get("objects"))
    if not isinstance(data, list) or not all(isinstance(o, dict) for o in data):
        return None
    out = []
    for o in data:
        obj = _empty()
        obj["mesh"] = _canonical(o.get("mesh", o.get("shape")), SHAPES)
        obj["material"] = _canonical(o.get("material"), MATERIALS)
        obj["size"] = _canonical(o.get("size"), SIZES)
        obj["color"] = _canonical(o.get("color"), COLORS)
        flags = o.get("cycles", o.get("transformation", {}))
        for c in CYCLES:
            obj[c] = _truthy(o.get(c)) or (isinstance(flags, dict) and _truthy(flags.get(c)))
            if isinstance(flags, list):
                obj[c] = obj[c] or c in flags
        out.append(obj)
    return out


def _json_in(text: str) -> Any:
    for m in re.finditer(r"[\[{]", text or ""):
        try:
            value, _ = json.JSONDecoder().raw_decode(text[m.start() :])
        except json.JSONDecodeError:
            continue
        return value
    return None


def _nouns(sentence: str) -> list[tuple[int, int, str]]:
    """(start, end, mesh or "") of each object noun in a sentence."""
    spans = [(m.start(), m.end(), shape) for shape, pat in _SHAPE_SPANS for m in pat.finditer(sentence)]
    spans += [(m.start(), m.end(), "") for m in _GENERIC_RE.finditer(sentence)]
    spans.sort()
    return first_of_overlaps(spans)


def _modifiers(before: str) -> tuple[dict[str, str], int, bool]:
    """Attributes, count and definiteness from the words right before a noun (back to a boundary)."""
    chunk = re.split(
        r"[,;:]|\b(?:and|with|of|by|around|that|which|while|than|near|from|to|into|between)\b", before
    )[-1]
    words = chunk.split()[-6:]
    text = " ".join(words)
    attrs: dict[str, str] = {}
    for field, values in _VALUE_GROUPS:
        for v in values:
            if PATTERNS[v].search(text):
                attrs[field] = v
                break
    count = 1
    for w in words:
        if w in _COUNT_WORDS:
            count = _COUNT_WORDS[w]
        elif re.fullmatch(r"[2-9]", w):
            count = int(w)
    definite = bool(words) and any(w in ("the", "this", "that", "its", "each") for w in words[:2])
    return attrs, count, definite


def _compatible(obj: dict[str, Any], mesh: str, attrs: dict[str, str]) -> bool:
    if mesh and obj["mesh"] not in (mesh, NOT_MENTIONED):
        return False
    return all(obj[k] in (v, NOT_MENTIONED) for k, v in attrs.items())


def objects_from_text(text: str) -> list[dict[str, Any]]:
    """Objects described in a free-text caption (see the module docstring for the rules)."""
    objects: list[dict[str, Any]] = []
    last: list[int] = []
    for sentence in re.split(r"(?<=[.!?;\n])\s+|\n+", normalise(text)):
        nouns = _nouns(sentence)
        if not nouns:
            if re.match(r"\s*(?:it|they|this object|both|all of them)\b", sentence):
                for c, pat in CYCLE_PATTERNS.items():
                    if pat.search(sentence):
                        for i in last:
                            objects[i][c] = True
            continue
        current: list[int] = []
        for k, (start, end, mesh) in enumerate(nouns):
            attrs, count, definite = _modifiers(sentence[:start])
            if not mesh and not attrs:
                continue  # "another object": a reference, not a description
            stop = nouns[k + 1][0] if k + 1 < len(nouns) else len(sentence)
            clause = sentence[end:stop]
            if re.match(r"\s*(?:is |are )?(?:being )?(?:orbited|circled)", clause):
                clause = ""
            refs = (
                [i for i in range(len(objects)) if _compatible(objects[i], mesh, attrs)] if definite else []
            )
            if refs:
                idx = [refs[-1]]
            else:
                idx = []
                for _ in range(count):
                    obj = _empty()
                    obj["mesh"] = mesh or NOT_MENTIONED
                    obj.update(attrs)
                    objects.append(obj)
                    idx.append(len(objects) - 1)
            for i in idx:
                if mesh and objects[i]["mesh"] == NOT_MENTIONED:
                    objects[i]["mesh"] = mesh
                for key, v in attrs.items():
                    if objects[i][key] == NOT_MENTIONED:
                        objects[i][key] = v
                for c, pat in CYCLE_PATTERNS.items():
                    if pat.search(clause):
                        objects[i][c] = True
            current.extend(idx)
        if current:
            last = current
    return objects


def extract_objects(text: str, structured: Any = None) -> list[dict[str, Any]]:
    """The caption's objects: from structured output or a JSON block when present, else from the text."""
    for candidate in (structured, _json_in(text)):
        objs = objects_from_json(candidate) if candidate is not None else None
        if objs is not None:
            return objs
    return objects_from_text(text)


def describe_objects(objects: list[dict[str, Any]]) -> str:
    """A plain caption stating every object's attributes and cycles (the oracle's answer)."""
    verbs = {
        "linear": "moves back and forth",
        "orbit": "orbits",
        "rotate": "rotates",
        "resize": "changes its size",
        "recolor": "changes its color",
    }
    sentences = []
    for o in objects:
        words = [o[a] for a in ("size", "color", "material") if o.get(a, NOT_MENTIONED) != NOT_MENTIONED]
        noun = o["mesh"] if o.get("mesh", NOT_MENTIONED) != NOT_MENTIONED else "object"
        acts = [verbs[c] for c in CYCLES if o.get(c)]
        tail = f" that {' and '.join(acts)}" if acts else ""
        first = words[0] if words else noun
        article = "an" if first[0] in "aeiou" else "a"
        sentences.append(f"There is {article} {' '.join(words + [noun])}{tail}.")
    return " ".join(sentences)
