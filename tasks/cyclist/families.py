"""CycliST's question families, tiers and answer kinds (paper Sec. 3-4, Table 14), and the release's names.

The public release names its template files differently from the paper ("existential_descriptive_*",
"counting_frequency", "counting_occurance", "counting_occurence"); `family_of` maps either spelling to the
paper's twelve names. The family is data: every question names its template file (and the project's
builder also writes `family`); this module is the only list of the twelve names and their Table 14 order
(the builder's families are its template files' `family` fields).

By their programs: `counting_occurance.json` holds the release's count templates (`filter_<cycle>` then
`count`: numeric_counting, 12 x 26 = 312 questions at L1 as Table 14), `counting_occurence.json` the
passes templates (numeric_occurrence) and `counting_frequency.json` the period templates
(numeric_periodicity).
"""

from __future__ import annotations

import math
import re
from typing import Any, Optional

from harness_tasks.cyclist.vocab import DOMAINS, value_domain

FAMILIES = (
    "descriptive_existential_attributes",
    "descriptive_existential_compare",
    "descriptive_existential_relate",
    "descriptive_universal_attributes",
    "descriptive_universal_compare",
    "descriptive_universal_relate",
    "cycle_representative_orbit",
    "cycle_representative_clockwise",
    "cycle_representative_transition",
    "numeric_counting",
    "numeric_periodicity",
    "numeric_occurrence",
)

# Table 14's answer type of each family; attribute families name the vocabulary domains their answers take
ANSWER_KINDS: dict[str, str] = {
    **{f: "yes/no" for f in FAMILIES if f.startswith("descriptive_")},
    **{f: "attribute" for f in FAMILIES if f.startswith("cycle_representative_")},
    **{f: "integer" for f in FAMILIES if f.startswith("numeric_")},
}
ATTRIBUTE_DOMAINS: dict[str, tuple[str, ...]] = {
    "cycle_representative_orbit": ("size", "color"),
    "cycle_representative_clockwise": ("direction",),
    "cycle_representative_transition": ("color", "size"),
}

# template file (name without `.json`) -> (family, number of templates in it): the official generator's
# files (simon-kohaut/CycliST at 196ec63, assets/question_templates/CycliST_1.0_templates) and this
# project's (builders/cyclist/questions/templates; tests/test_cyclist_release_layout.py checks them).
# `question_family_index` is a template's position in its file.
TEMPLATE_FILES: dict[str, tuple[str, int]] = {
    "counting_frequency": ("numeric_periodicity", 5),
    "counting_occurance": ("numeric_counting", 6),
    "counting_occurence": ("numeric_occurrence", 2),
    "existential_descriptive_attributes": ("descriptive_existential_attributes", 2),
    "existential_descriptive_compare": ("descriptive_existential_compare", 2),
    "existential_descriptive_relate": ("descriptive_existential_relate", 1),
    "universal_descriptive_attributes": ("descriptive_universal_attributes", 2),
    "universal_descriptive_compare": ("descriptive_universal_compare", 2),
    "universal_descriptive_relate": ("descriptive_universal_relate", 1),
    "cycle_representative_orbit": ("cycle_representative_orbit", 2),
    "cycle_representative_clockwise": ("cycle_representative_clockwise", 1),
    "cycle_representative_transition": ("cycle_representative_transition", 4),
    "descriptive_existential_attributes": ("descriptive_existential_attributes", 2),
    "descriptive_existential_compare": ("descriptive_existential_compare", 2),
    "descriptive_existential_relate": ("descriptive_existential_relate", 1),
    "descriptive_universal_attributes": ("descriptive_universal_attributes", 2),
    "descriptive_universal_compare": ("descriptive_universal_compare", 2),
    "descriptive_universal_relate": ("descriptive_universal_relate", 1),
    "numeric_counting": ("numeric_counting", 6),
    "numeric_occurrence": ("numeric_occurrence", 2),
    "numeric_periodicity": ("numeric_periodicity", 3),
}


# other spellings of the numeric files seen in CycliST material (no template count known for them)
RELEASE_NAMES = {
    "counting_periodicity": "numeric_periodicity",
    "counting_occurrence": "numeric_occurrence",
    "counting_cycles": "numeric_counting",
    "counting": "numeric_counting",
}

# the unit words a numeric family's answer comes with (tie-breaker when a reply names several numbers)
UNITS = {
    "numeric_counting": ("objects?", "cycles?", "things?", "items?", "shapes?", "cyclic"),
    "numeric_periodicity": ("frames?",),
    "numeric_occurrence": ("times?", "cycles?", "orbits?", "rotations?", "passes", "repetitions?", "loops?"),
}


def template_stem(name: Any) -> str:
    """A template file name as TEMPLATE_FILES keys it: no folder, no `.json`, no `questions_` prefix."""
    stem = re.sub(r"\.json$", "", str(name).rsplit("/", 1)[-1])
    return re.sub(r"^questions_", "", stem)


def family_of(question: dict[str, Any]) -> Optional[str]:
    """The paper's family name of a question: its `family` field, else from `template_filename`."""
    fam = question.get("family")
    if isinstance(fam, str) and fam in FAMILIES:
        return fam
    name = template_stem(question.get("template_filename") or fam or "")
    return TEMPLATE_FILES[name][0] if name in TEMPLATE_FILES else RELEASE_NAMES.get(name)


def template_problem(question: dict[str, Any]) -> Optional[str]:
    """Why a row's `template_filename` or `question_family_index` names no known template; None when
    both are known (or absent: a row may name its family instead)."""
    raw = question.get("template_filename")
    count = None
    if raw is not None:
        stem = template_stem(raw) if isinstance(raw, str) else None
        if stem not in TEMPLATE_FILES and stem not in RELEASE_NAMES:
            known = ", ".join(f"{k}.json" for k in TEMPLATE_FILES)
            return f"template_filename {raw!r} is no CycliST template file (known: {known})"
        count = TEMPLATE_FILES[stem][1] if stem in TEMPLATE_FILES else None
    if "question_family_index" in question:
        index = question["question_family_index"]
        whole = isinstance(index, (int, float)) and not isinstance(index, bool) and float(index).is_integer()
        if not whole or index < 0 or (count is not None and index >= count):
            has = f" (it has {count}: 0..{count - 1})" if count is not None else ""
            return f"question_family_index {index!r} names no template of {raw or 'its family'}{has}"
    return None


def quantifier_of(family: str) -> str:
    """existential | universal | none."""
    for q in ("existential", "universal"):
        if f"_{q}_" in family:
            return q
    return "none"


def category_of(family: str) -> str:
    """Table 4's question type (query / compare / relate) for descriptive families, else the family group."""
    if family.startswith("descriptive_"):
        kind = family.rsplit("_", 1)[-1]
        return "query" if kind == "attributes" else kind
    return "cyclic" if family.startswith("cycle_") else "numeric"


class BadTarget(ValueError):
    """A row's answer that its family cannot have (the message says what the family allows)."""


def _yes_no(answer: Any) -> str:
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    word = answer.strip().lower() if isinstance(answer, str) else None
    if word in ("yes", "true"):
        return "yes"
    if word in ("no", "false"):
        return "no"
    raise BadTarget("a yes/no family's answer must be yes/no (true/false or the strings)")


def _count(answer: Any) -> int:
    if isinstance(answer, int) and not isinstance(answer, bool) and answer >= 0:
        return answer
    if isinstance(answer, float) and math.isfinite(answer) and answer.is_integer() and answer >= 0:
        return int(answer)
    if isinstance(answer, str) and re.fullmatch(r"\d+(?:\.0+)?", answer.strip()):
        return int(float(answer.strip()))
    raise BadTarget("a counting family's answer must be a non-negative integer")


def family_target(family: str, answer: Any) -> tuple[Any, str, Optional[str]]:
    """(canonical target, answer kind, attribute domain) of a row's answer, checked against its family:
    yes/no families take yes/no only, counting families a non-negative integer (no bool, NaN, infinity or
    word), attribute families a value of the family's vocabulary domains. Raises BadTarget otherwise."""
    kind = ANSWER_KINDS[family]
    if kind == "yes/no":
        return _yes_no(answer), kind, None
    if kind == "integer":
        return _count(answer), kind, None
    value = answer.strip().lower() if isinstance(answer, str) else None
    domain = value_domain(value) if value else None
    if domain not in ATTRIBUTE_DOMAINS[family]:
        allowed = ", ".join(v for d in ATTRIBUTE_DOMAINS[family] for v in DOMAINS[d])
        raise BadTarget(f"a {family} answer must be one of {allowed}")
    return value, kind, domain
