"""Load and check CycliST question templates (CLEVR-style JSON, one file per question family).

A template file is `{"family", "category", "quantifier", "templates": [...]}`; each template has
`text` (question strings with slots such as <Z> <C> <M> <S> <CC> <E> <RO> <MO> <R>), `nodes` (the
program: `type`, `inputs`, optional `side_inputs` naming slots), `params` (slot name and type) and
`constraints` (NULL, NEQ, OUT_NEQ). Loading fails with TemplateError naming the file and template on
an unknown function, a slot without a type, or a program whose types do not fit together.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.api import read_json_file

from .functions import ANSWER_TYPE_OF, FUNCTIONS, VALUE_TYPES

TEMPLATE_DIR = Path(__file__).with_name("templates")
SLOT_RE = re.compile(r"<[A-Z]+[0-9]*>")

# Types a filter_unique slot may describe an object by, in descriptor bit order.
DESCRIPTOR_TYPES = ("Size", "Color", "Material", "Shape", "change_color", "enlarge", "rotate", "motion")
SLOT_TYPES = set(DESCRIPTOR_TYPES) | set(VALUE_TYPES)
# Answer values a template's balancing counts start with, as the official generator initialises them:
# integers 0..10, periods (the release's "Prime" type) 1..8 x fps frames (fps 32).
INTEGER_DOMAIN = tuple(range(0, 11))
PERIOD_DOMAIN = tuple(range(1, 8 * 32 + 1))


class TemplateError(ValueError):
    """A template file that cannot be used; the message names the file and template index."""


@dataclass
class TemplateNode:
    """One program node of a template: function (or the composite filter_unique), inputs, slots."""

    type: str
    inputs: list[int]
    slots: list[str]
    allowed_mask: int = 0  # filter_unique: descriptor bits the template lets it use


@dataclass
class Template:
    """A checked template, with the family metadata every question it makes carries."""

    family: str
    filename: str
    index: int
    category: str
    quantifier: str
    tier_note: str
    text: list[str]
    nodes: list[TemplateNode]
    params: dict[str, str]
    out_neq: list[tuple[int, int]] = field(default_factory=list)
    neq: list[tuple[str, str]] = field(default_factory=list)
    output_type: str = ""
    answer_type: str = ""
    answer_domain: tuple[Any, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.filename}:{self.index}"


def _check_template(raw: Any, filename: str, index: int, meta: dict) -> Template:
    """The checked template; a TemplateError names the file, the template and the problem."""
    try:
        return _template(raw, filename, index, meta)
    except TemplateError as exc:
        raise TemplateError(f"template file '{filename}', template {index}: {exc}") from None


def _template(raw: Any, filename: str, index: int, meta: dict) -> Template:
    """The template `raw` describes, checked (its TemplateErrors say the problem; the caller adds where)."""
    if not isinstance(raw, dict):
        raise TemplateError("expected an object with text, nodes, params, constraints")
    texts, nodes_raw = raw.get("text"), raw.get("nodes")
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise TemplateError("'text' must be a non-empty list of strings")
    if not isinstance(nodes_raw, list) or not nodes_raw:
        raise TemplateError("'nodes' must be a non-empty list")
    params = _slot_types(raw.get("params", []), texts)
    null_slots, out_neq, neq = _constraints(raw.get("constraints", []), params)
    nodes, out_types = _program(nodes_raw, params, null_slots)
    for i, j in out_neq:
        if not (0 <= i < len(nodes) and 0 <= j < len(nodes)):
            raise TemplateError(f"OUT_NEQ names nodes {i}, {j} outside the program")
    output_type = out_types[-1]
    if output_type not in ANSWER_TYPE_OF:
        raise TemplateError(
            f"the last node outputs {output_type}, not an answer (yes/no, attribute or integer)"
        )
    return Template(
        family=meta["family"],
        filename=filename,
        index=index,
        category=meta["category"],
        quantifier=meta.get("quantifier", "none"),
        tier_note=meta.get("note", ""),
        text=list(texts),
        nodes=nodes,
        params=params,
        out_neq=out_neq,
        neq=neq,
        output_type=output_type,
        answer_type=ANSWER_TYPE_OF[output_type],
        answer_domain=_answer_domain(output_type, nodes[-1]),
    )


def _slot_types(raw_params: list, texts: list[str]) -> dict[str, str]:
    """Slot name -> type from `params`; every slot the texts use must have a known type."""
    params: dict[str, str] = {}
    for p in raw_params:
        if not isinstance(p, dict) or not p.get("name"):
            raise TemplateError(f"param {p!r} has no name")
        if p.get("type") not in SLOT_TYPES:
            raise TemplateError(
                f"slot {p['name']} has type {p.get('type')!r}; known types: {sorted(SLOT_TYPES)}"
            )
        params[p["name"]] = p["type"]
    for text in texts:
        for slot in SLOT_RE.findall(text):
            if slot not in params:
                raise TemplateError(f"slot {slot} in text {text!r} has no type in 'params'")
    return params


def _constraints(
    raw: list, params: dict[str, str]
) -> tuple[set[str], list[tuple[int, int]], list[tuple[str, str]]]:
    """(NULL slots, OUT_NEQ node pairs, NEQ slot pairs) of a template's `constraints`."""
    null_slots: set[str] = set()
    out_neq, neq = [], []
    for c in raw:
        kind, cparams = c.get("type"), c.get("params", [])
        if kind == "NULL" and len(cparams) == 1 and cparams[0] in params:
            null_slots.add(cparams[0])
        elif kind == "OUT_NEQ" and len(cparams) == 2 and all(isinstance(i, int) for i in cparams):
            out_neq.append((cparams[0], cparams[1]))
        elif kind == "NEQ" and len(cparams) == 2 and all(p in params for p in cparams):
            neq.append((cparams[0], cparams[1]))
        else:
            raise TemplateError(
                f"constraint {c!r} is not NULL [slot], NEQ [slot, slot] or OUT_NEQ [node, node]"
            )
    return null_slots, out_neq, neq


def _program(
    nodes_raw: list, params: dict[str, str], null_slots: set[str]
) -> tuple[list[TemplateNode], list[str]]:
    """The checked program nodes and each node's output type: inputs name earlier nodes, and every
    function gets the input and value types it takes."""
    nodes: list[TemplateNode] = []
    out_types: list[str] = []
    for k, n in enumerate(nodes_raw):
        ntype, inputs, slots = n.get("type"), n.get("inputs", []), n.get("side_inputs", [])
        if not all(isinstance(i, int) and 0 <= i < k for i in inputs):
            raise TemplateError(f"node {k} ({ntype}): inputs {inputs} must name earlier nodes")
        for slot in slots:
            if slot not in params:
                raise TemplateError(f"node {k} ({ntype}): slot {slot} has no type in 'params'")
        in_types = [out_types[i] for i in inputs]
        if ntype == "filter_unique":
            if in_types != ["ObjectSet"]:
                raise TemplateError(f"node {k} (filter_unique): needs one ObjectSet input, got {in_types}")
            mask = _descriptor_mask(k, slots, params, null_slots)
            nodes.append(TemplateNode(ntype, list(inputs), list(slots), mask))
            out_types.append("Object")
            continue
        fn = FUNCTIONS.get(ntype)
        if fn is None:
            raise TemplateError(f"node {k}: unknown function {ntype!r}")
        if list(fn.inputs) != in_types:
            raise TemplateError(f"node {k} ({ntype}): takes inputs {list(fn.inputs)}, got {in_types}")
        if [params[s] for s in slots] != list(fn.values):
            raise TemplateError(
                f"node {k} ({ntype}): takes values {list(fn.values)}, slots give {[params[s] for s in slots]}"
            )
        nodes.append(TemplateNode(ntype, list(inputs), list(slots)))
        out_types.append(fn.output)
    return nodes, out_types


def _descriptor_mask(k: int, slots: list[str], params: dict[str, str], null_slots: set[str]) -> int:
    """The descriptor bits a filter_unique node may use: its slots' types, except slots that may be NULL."""
    mask = 0
    for slot in slots:
        if params[slot] not in DESCRIPTOR_TYPES:
            raise TemplateError(
                f"node {k} (filter_unique): slot {slot} of type {params[slot]} cannot describe an object"
            )
        if slot not in null_slots:
            mask |= 1 << DESCRIPTOR_TYPES.index(params[slot])
    return mask


def _answer_domain(output_type: str, last: TemplateNode) -> tuple[Any, ...]:
    """The answers a template can give, as the balancing counts start: yes/no, integers (periods for a
    `*_period` program) or the attribute's values."""
    if output_type == "Bool":
        return (True, False)
    if output_type == "Integer":
        return PERIOD_DOMAIN if last.type.endswith("_period") else INTEGER_DOMAIN
    return VALUE_TYPES.get(output_type, ())


def load_template_file(path: Path) -> list[Template]:
    """Load and check one family's template file."""
    try:
        data = read_json_file(path, "question template file (JSON)", error=ValueError)  # regular, bounded
    except ValueError as exc:
        raise TemplateError(f"template file '{Path(path).name}': cannot read JSON ({exc})") from exc
    name = Path(path).name
    if not isinstance(data, dict) or not isinstance(data.get("templates"), list):
        raise TemplateError(
            f"template file '{name}': expected {{family, category, quantifier, templates: [...]}}"
        )
    for key in ("family", "category"):
        if not isinstance(data.get(key), str):
            raise TemplateError(f"template file '{name}': missing '{key}'")
    return [_check_template(t, name, i, data) for i, t in enumerate(data["templates"])]


def load_templates(directory: str | Path | None = None) -> list[Template]:
    """All templates of a folder of family files (default: the built-in twelve families)."""
    if directory is None:
        return list(_default_templates())
    files = sorted(Path(directory).glob("*.json"))
    if not files:
        raise TemplateError(f"template folder '{directory}' has no *.json template files")
    return [t for f in files for t in load_template_file(f)]


@lru_cache(maxsize=1)
def _default_templates() -> tuple[Template, ...]:
    files = sorted(TEMPLATE_DIR.glob("*.json"))
    if not files:  # an install that did not ship the package data: no question could ever be made
        raise TemplateError(f"the built-in template folder {TEMPLATE_DIR} has no *.json files; reinstall the harness")
    return tuple(t for f in files for t in load_template_file(f))


def family_names(templates: list[Template] | tuple[Template, ...] | None = None) -> tuple[str, ...]:
    """The question families of a template set (default: the built-in files), in file order. The
    family of a question is data: its template file's `family` field, carried into every question as
    `family` and `template_filename`; readers (the task) take it from there."""
    chosen = _default_templates() if templates is None else templates
    return tuple(dict.fromkeys(t.family for t in chosen))


FAMILIES = family_names()


@lru_cache(maxsize=1)
def load_synonyms() -> dict[str, list[str]]:
    """Words each value may be written as in a question (first entry is the canonical word)."""
    return json.loads(Path(__file__).with_name("synonyms.json").read_text())
