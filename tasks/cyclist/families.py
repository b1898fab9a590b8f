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

import re
from typing import Any, Optional

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

# tier -> (data folder name in the release, paper name)
TIERS: dict[str, tuple[str, str]] = {
    "L1": ("unicycle", "Unicycle"),
    "L2": ("unicycle_cluttered", "Unicycle-Cluttered"),
    "L3": ("bicycle", "Bicycle"),
    "L4": ("tricycle", "Tricycle"),
    "L5": ("nightrider", "Nightrider"),
}

RELEASE_NAMES = {
    "counting_frequency": "numeric_periodicity",
    "counting_periodicity": "numeric_periodicity",
    "counting_occurance": "numeric_counting",
    "counting_occurence": "numeric_occurrence",
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


def family_of(question: dict[str, Any]) -> Optional[str]:
    """The paper's family name of a question: its `family` field, else from `template_filename`."""
    fam = question.get("family")
    if isinstance(fam, str) and fam in FAMILIES:
        return fam
    name = str(question.get("template_filename") or fam or "")
    name = re.sub(r"\.json$", "", name.rsplit("/", 1)[-1])
    name = re.sub(r"^questions_", "", name)
    if name in FAMILIES:
        return name
    if name in RELEASE_NAMES:
        return RELEASE_NAMES[name]
    m = re.fullmatch(r"(existential|universal)_descriptive_(attributes|compare|relate)", name)
    if m:
        return f"descriptive_{m.group(1)}_{m.group(2)}"
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


def answer_kind(target: Any) -> str:
    """yes/no, integer or attribute, from the ground-truth answer's value."""
    if isinstance(target, bool):
        return "yes/no"
    if isinstance(target, (int, float)):
        return "integer"
    t = str(target).strip().lower()
    if t in ("yes", "no", "true", "false"):
        return "yes/no"
    if re.fullmatch(r"-?\d+(?:\.0+)?", t):
        return "integer"
    return "attribute"


def canonical_target(target: Any) -> Any:
    """The ground truth as the scorer compares it: "yes"/"no", an int, or a lower-case attribute."""
    kind = answer_kind(target)
    if kind == "yes/no":
        return "yes" if (target is True or str(target).strip().lower() in ("yes", "true")) else "no"
    if kind == "integer":
        return int(float(target))
    return str(target).strip().lower()
