"""Render a question string from a template text and an instance's slot values.

Slots are replaced by a random synonym of their value; an unused descriptor slot disappears, an
unused shape slot reads "object" (CLEVR's "thing"); articles are fixed afterwards ("a" / "an").
"""

from __future__ import annotations

import random
import re
from typing import Any

from .templates import SLOT_RE, load_synonyms

_ARTICLE_RE = re.compile(r"\b([Aa])n?\s+(?=(\w))")


def _word(value: Any, slot_type: str, synonyms: dict[str, list[str]], rng: random.Random) -> str:
    if value in ("", None):
        return rng.choice(synonyms["thing"]) if slot_type == "Shape" else ""
    choices = synonyms.get(str(value))
    return rng.choice(choices) if choices else str(value)


def _fix_article(match: re.Match) -> str:
    article = match.group(1)
    vowel = match.group(2).lower() in "aeiou"
    return f"{article}n " if vowel else f"{article} "


def render(text: str, values: dict[str, Any], params: dict[str, str], rng: random.Random) -> str:
    """The question string: slots filled, whitespace collapsed, articles agreed."""
    synonyms = load_synonyms()

    def fill(match: re.Match) -> str:
        slot = match.group(0)
        return _word(values.get(slot, ""), params[slot], synonyms, rng)

    out = " ".join(SLOT_RE.sub(fill, text).split())
    out = re.sub(r"\s+([?.,])", r"\1", out)
    return _ARTICLE_RE.sub(_fix_article, out)
