"""CycliST's answer vocabulary: attribute values with their synonyms, number words, yes/no words.

The values themselves (colours, sizes, shapes, materials, directions, relations, cycle types, tiers) are
defined once, in `vocabulary.json` beside this module, which the builder reads too
(builders/cyclist/constants.py): a data file, so neither side imports the other. One table serves the rule
judge, the oracle's phrasing and the chance levels, so a value the judge accepts is always one the dataset
can hold. Synonyms follow what video LLMs write ("grey", "big", "shiny", "anticlockwise"); see
docs/benchmarks/cyclist.md for the mapping decisions.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.json")
VOCABULARY = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))

COLORS: tuple[str, ...] = tuple(VOCABULARY["colors"])
SIZES: tuple[str, ...] = tuple(VOCABULARY["sizes"])
SHAPES: tuple[str, ...] = tuple(VOCABULARY["shapes"])
MATERIALS: tuple[str, ...] = tuple(VOCABULARY["materials"])
# material spellings the release writes (`mymetal`) -> the value
MATERIAL_ALIASES: dict[str, str] = {**{m: m for m in MATERIALS}, **VOCABULARY["material_aliases"]}
DIRECTIONS: tuple[str, ...] = tuple(VOCABULARY["directions"])
RELATIONS: tuple[str, ...] = tuple(VOCABULARY["relations"])
CYCLES: tuple[str, ...] = tuple(VOCABULARY["cycles"])
# tier code -> (the release's folder, the paper's name)
TIERS: dict[str, tuple[str, str]] = {
    code: (folder, name) for code, (folder, name) in VOCABULARY["tiers"].items()
}

DOMAINS: dict[str, tuple[str, ...]] = {
    "color": COLORS,
    "size": SIZES,
    "shape": SHAPES,
    "material": MATERIALS,
    "direction": DIRECTIONS,
    "relation": RELATIONS,
}

# Surface forms per canonical value (lower case; multi-word forms allowed). Longest forms are tried first.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "gray": ("gray", "grey", "grayish", "greyish", "silver", "silvery", "black", "white"),
    "red": ("red", "reddish", "crimson", "scarlet", "maroon"),
    "blue": ("blue", "bluish", "navy", "azure", "dark blue", "light blue"),
    "green": ("green", "greenish", "lime", "olive", "emerald"),
    "brown": ("brown", "brownish", "tan", "beige", "bronze", "copper"),
    "purple": ("purple", "violet", "magenta", "lilac", "lavender", "purplish"),
    "cyan": ("cyan", "teal", "turquoise", "aqua", "aquamarine"),
    "yellow": ("yellow", "golden", "gold", "yellowish"),
    "small": ("small", "smaller", "tiny", "little", "smallest"),
    "large": ("large", "larger", "big", "bigger", "huge", "giant", "largest", "biggest"),
    "cube": ("cube", "cubes", "block", "blocks", "box", "boxes", "cuboid"),
    "sphere": ("sphere", "spheres", "ball", "balls", "orb", "spherical"),
    "cylinder": ("cylinder", "cylinders", "cylindrical"),
    "cone": ("cone", "cones", "conical"),
    "metal": ("metal", "metallic", "shiny", "reflective", "chrome", "steel", "glossy"),
    "rubber": ("rubber", "rubbery", "matte", "matt", "plastic"),
    "counterclockwise": (
        "counterclockwise",
        "counter-clockwise",
        "counter clockwise",
        "anticlockwise",
        "anti-clockwise",
        "anti clockwise",
    ),
    "clockwise": ("clockwise",),
    "left": ("left",),
    "right": ("right",),
    "behind": ("behind", "back"),
    "front": ("front", "in front"),
}

NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "none": 0, "no": 0, "one": 1, "a single": 1, "single": 1, "once": 1, "two": 2, "twice": 2,
    "three": 3, "thrice": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}  # fmt: skip

YES_WORDS = ("yes", "yeah", "yep", "true", "correct", "indeed", "affirmative", "certainly", "absolutely")
NO_WORDS = ("no", "nope", "false", "incorrect", "negative")
NEGATIONS = ("not", "never", "no", "none", "neither", "nor", "nowhere", "nothing", "n't", "cannot")
INDEFINITE_PHRASES = (
    "cannot be determined", "can't be determined", "cannot determine", "can't determine", "cannot tell",
    "can't tell", "cannot say", "can't say", "not possible to", "impossible to", "unable to", "not sure",
    "unsure", "unclear", "it depends", "hard to say", "difficult to", "not enough information",
    "insufficient information", "i don't know", "i do not know", "not clear", "not certain", "uncertain",
    "either", "not visible", "no way to", "undetermined", "cannot be sure", "can't be sure",
)  # fmt: skip


def value_domain(value: str) -> str | None:
    """The attribute domain ("color", "size", ...) a canonical value belongs to, or None."""
    for name, values in DOMAINS.items():
        if value in values:
            return name
    return None


def surface_pattern(forms: tuple[str, ...]) -> re.Pattern:
    """A word-bounded regex matching any of `forms` (longest first, spaces/hyphens interchangeable)."""
    parts = [
        re.escape(f).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]*")
        for f in sorted(forms, key=len, reverse=True)
    ]
    return re.compile(r"(?<![\w-])(?:" + "|".join(parts) + r")(?![\w-])")


PATTERNS: dict[str, re.Pattern] = {value: surface_pattern(forms) for value, forms in SYNONYMS.items()}
