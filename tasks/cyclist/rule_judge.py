"""The deterministic rule judge for CycliST's free-form VQA answers: yes/no, numbers, attributes.

Each extractor returns an `Extraction`: the canonical value, or `indefinite=True` with the reason when
the answer commits to nothing ("cannot tell") or to two answers ("2 or 3", "red or blue"). Indefinite
answers count as wrong and are left out of MAE (paper Sec. 5). Captions are in `caption_parser`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from harness_tasks.cyclist.vocab import (
    DOMAINS,
    INDEFINITE_PHRASES,
    NEGATIONS,
    NO_WORDS,
    NUMBER_WORDS,
    PATTERNS,
    YES_WORDS,
)


@dataclass
class Extraction:
    """What the judge read from an answer: a canonical value, or indefinite with the reason."""

    value: Any = None
    indefinite: bool = False
    reason: str = ""


def normalise(text: str) -> str:
    """Lower case, unified apostrophes and dashes, collapsed whitespace, markdown emphasis removed."""
    t = (text or "").lower().replace("\u2019", "'").replace("\u2013", "-").replace("\u2014", "-")
    t = re.sub(r"[*_`#]+", " ", t)
    return " ".join(t.split())


def _strip_preamble(t: str) -> str:
    return re.sub(
        r"^(?:(?:final )?answer\s*[:\-]\s*|the (?:final |correct )?answer is\s*:?\s*)", "", t
    ).strip()


def has_indefinite_phrase(t: str) -> bool:
    """Whether a normalised answer contains a phrase that commits to nothing."""
    return any(re.search(r"(?<!\w)" + re.escape(p) + r"(?!\w)", t) for p in INDEFINITE_PHRASES)


def _words(t: str) -> list[str]:
    return re.findall(r"[a-z]+(?:'[a-z]+)?|\d+(?:\.\d+)?", t)


# -- yes / no ---------------------------------------------------------------------------------------
def extract_yes_no(text: str) -> Extraction:
    """ "yes" / "no" from a free-form reply; an explicit leading word wins, then hedges, then negation."""
    t = _strip_preamble(normalise(text))
    if not t:
        return Extraction(indefinite=True, reason="empty reply")
    words = _words(t)
    lead = words[0] if words else ""
    head = set(words[:3])
    both = bool(head & set(YES_WORDS)) and bool(head & set(NO_WORDS))
    if lead in YES_WORDS and not both:
        return Extraction("yes")
    if lead in NO_WORDS and not both:
        return Extraction("no")
    if both or has_indefinite_phrase(t):
        return Extraction(indefinite=True, reason="no committed yes/no")
    yes = any(w in YES_WORDS for w in words)
    no = any(w in NO_WORDS for w in words)
    if yes != no:
        return Extraction("yes" if yes else "no")
    if yes and no:
        return Extraction(indefinite=True, reason="both yes and no")
    if any(w in NEGATIONS or w.endswith("n't") for w in words):
        return Extraction("no")
    if len(words) < 3:
        return Extraction(indefinite=True, reason="neither yes nor no")
    return Extraction("yes")  # an affirmative statement ("The cube is always left of the sphere.")


# -- numbers ----------------------------------------------------------------------------------------
_NUM_WORD_RE = re.compile(
    r"(?<!\w)(?:a single|"
    + "|".join(sorted((w for w in NUMBER_WORDS if w != "a single"), key=len, reverse=True))
    + r")(?![\w])"
)
_RANGE_RE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:-|to|or|/)\s*(\d+(?:\.\d+)?)(?![\w.])"
    r"|(?<![\w-])([a-z]+)\s+(?:to|or)\s+([a-z]+)(?![\w-])|between\s+(\S+)\s+and\s+(\S+)"
)


def _word_value(word: str) -> Optional[float]:
    if re.fullmatch(r"\d+(?:\.\d+)?", word):
        return float(word)
    return float(NUMBER_WORDS[word]) if word in NUMBER_WORDS and word not in ("no", "none") else None


def _number_mentions(t: str) -> list[tuple[int, int, float]]:
    """(start, end, value) of every number: digits, and runs of number words ("one hundred sixty")."""
    out: list[tuple[int, int, float]] = []
    for m in re.finditer(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])", t):
        out.append((m.start(), m.end(), float(m.group().replace(",", ""))))
    run: list[tuple[int, int, int]] = []

    def flush() -> None:
        if not run:
            return
        total, current = 0, 0
        for _, _, v in run:
            if v == 100:
                current = max(current, 1) * 100
            else:
                current += v
        total += current
        out.append((run[0][0], run[-1][1], float(total)))
        run.clear()

    for m in _NUM_WORD_RE.finditer(t):
        w = m.group()
        if w in ("no", "none"):
            flush()
            following = t[m.end() : m.end() + 20]
            if w == "none" or not re.match(r"\s*(?:,|\.|$|but|and|there|it|the|i )", following):
                out.append((m.start(), m.end(), 0.0))
            continue
        value = NUMBER_WORDS[w]
        if run and re.fullmatch(r"[\s-]*(?:and\s+)?", t[run[-1][1] : m.start()]):
            run.append((m.start(), m.end(), value))
        else:
            flush()
            run.append((m.start(), m.end(), value))
    flush()
    if re.match(r"\s*a hundred", t):
        out.append((0, 9, 100.0))
    return sorted(out)


def _is_range(t: str) -> bool:
    for m in _RANGE_RE.finditer(t):
        a, b = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
        va, vb = _word_value(a.strip(",.")), _word_value(b.strip(",."))
        if va is not None and vb is not None and va != vb:
            return True
    return False


def extract_number(text: str, unit_words: tuple[str, ...] = ()) -> Extraction:
    """A number from digits or number words; ranges and competing numbers are indefinite."""
    t = _strip_preamble(normalise(text))
    if not t:
        return Extraction(indefinite=True, reason="empty reply")
    t = re.sub(r"^(?:no|yes)\s*,\s*", "", t)
    mentions = _number_mentions(t)
    if not mentions:
        return Extraction(indefinite=True, reason="no number")
    if _is_range(t):
        return Extraction(indefinite=True, reason="a range or two numbers")
    values = sorted({v for _, _, v in mentions})
    if len(values) > 1 and unit_words:
        unit_re = re.compile(
            r"\s*(?:full |complete |completed |whole |video )?(?:" + "|".join(unit_words) + r")\b"
        )
        with_unit = sorted({v for _, e, v in mentions if unit_re.match(t[e:])})
        if len(with_unit) == 1:
            values = with_unit
    if len(values) > 1:
        answer = re.search(r"answer is\s+(\S+)", t)
        if answer:
            v = _word_value(answer.group(1).strip(",."))
            if v is not None:
                values = [v]
    if len(values) > 1:
        return Extraction(indefinite=True, reason=f"several numbers {values}")
    if has_indefinite_phrase(t) and not re.match(r"\s*\S+\s*$", t):
        hedged = re.search(
            r"(?:cannot|can't|unable to|impossible to|not possible to)\s+(?:determine|tell|say|count)", t
        )
        if hedged:
            return Extraction(indefinite=True, reason="hedged")
    v = values[0]
    return Extraction(int(v) if v == int(v) else v)


# -- attributes -------------------------------------------------------------------------------------
def first_of_overlaps(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The (start, end, value) spans, in their given order, less every span overlapping one kept before it."""
    kept: list[tuple[int, int, str]] = []
    for s in spans:
        if not kept or s[0] >= kept[-1][1]:
            kept.append(s)
    return kept


def attribute_mentions(t: str, domain: str) -> list[tuple[int, int, str]]:
    """(start, end, canonical value) of every mention of the domain's values, shorter overlaps removed."""
    spans = []
    for value in DOMAINS[domain]:
        spans.extend((m.start(), m.end(), value) for m in PATTERNS[value].finditer(t))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    return first_of_overlaps(spans)


_NEGATED_RE = re.compile(r"(?:\bnot|n't|\bnever|\bno longer)\s+(?:\w+\s+){0,2}$")
_TRANSITION_RE = re.compile(
    r"(?:\binto|\bto|\bbecomes?|\bbecoming|\bturns?|\bturning|\bchanges? to|\bswitch(?:es)? to|\bends? up)\s+(?:a |an |the |being )?(?:\w+\s+){0,1}$"
)


def extract_attribute(text: str, domain: str, question: str = "") -> Extraction:
    """One value of an attribute domain (color, size, shape, material, direction, relation)."""
    if domain not in DOMAINS:
        raise ValueError(f"extract_attribute: unknown domain '{domain}'; known: {sorted(DOMAINS)}")
    t = _strip_preamble(normalise(text))
    if not t:
        return Extraction(indefinite=True, reason="empty reply")
    mentions = attribute_mentions(t, domain)
    mentions = [m for m in mentions if not _NEGATED_RE.search(t[max(0, m[0] - 30) : m[0]])]
    values = list(dict.fromkeys(v for _, _, v in mentions))
    if len(values) > 1:
        after = [v for s, _, v in mentions if _TRANSITION_RE.search(t[max(0, s - 30) : s])]
        if len(set(after)) == 1:
            values = after[:1]
    if len(values) > 1 and question:
        q_values = {v for _, _, v in attribute_mentions(normalise(question), domain)}
        fresh = [v for v in values if v not in q_values]
        if len(fresh) == 1:
            values = fresh
    if len(values) == 1 and not (has_indefinite_phrase(t) and re.search(r"\bor\b|either", t)):
        return Extraction(values[0])
    if not values:
        return Extraction(indefinite=True, reason=f"no {domain} named")
    return Extraction(indefinite=True, reason=f"several values {values}")
