"""Instantiate one template on one scene: depth-first search over slot values and described objects,
CLEVR-style, with answer-balancing rejection sampling.

`filter_unique` nodes pick a target object and a random set of its attributes (size, colour,
material, shape and the cycle tags) that singles it out within the node's input set. Objects are
described by their initial appearance, as the official generator does (a cube that starts red and
turns blue is "the red cube", or "the color-changing cube"); the expansion uses the official filter
names (`filter_size`, `filter_color`, `filter_change_color [true]`, ...). Slot nodes try their type's
values in random order. An Invalid intermediate value, a failed constraint or a rejected answer
backtracks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .functions import FUNCTIONS, VALUE_TYPES, Invalid
from .state import COLORS, SHAPES, SIZES, SceneState
from .templates import DESCRIPTOR_TYPES, Template

_ALL_MASKS = np.arange(1 << len(DESCRIPTOR_TYPES), dtype=np.int64)
_TAG_CYCLES = {
    "change_color": ("recolor",),
    "enlarge": ("resize",),
    "rotate": ("rotate",),
    "motion": ("orbit", "linear"),
}
_DESCRIPTOR_FILTER = {
    "Size": "filter_size",
    "Color": "filter_color",
    "Material": "filter_material",
    "Shape": "filter_shape",
    "change_color": "filter_change_color",
    "enlarge": "filter_enlarge",
    "rotate": "filter_rotate",
    "motion": "filter_motion",
}


class AnswerBalancer:
    """The official generator's rejection rule, per template (file and index): an answer is rejected
    when its count so far exceeds 1.1 x the second largest count, or 5 x the median count (at least 5).
    Counts start at zero for every value the template can answer (yes/no; the attribute's values;
    integers 0..10; periods 1..256), so an integer answer is capped at 26 while fewer than half of the
    eleven integers occur. Counts reset every `reset_every` scenes (the official
    `--reset_counts_every`; 0 never resets)."""

    def __init__(self, reset_every: int = 1000) -> None:
        self.reset_every = reset_every
        self.counts: dict[str, dict[Any, int]] = {}
        self.totals: dict[str, dict[Any, int]] = {}
        self.template_totals: dict[str, dict[Any, int]] = {}
        self.template_counts: dict[str, int] = {}
        self._scenes = 0

    def new_scene(self) -> None:
        """Call once per scene; resets the counts every `reset_every` scenes."""
        if self.reset_every and self._scenes and self._scenes % self.reset_every == 0:
            self.counts = {}
            self.template_counts = {}
        self._scenes += 1

    def accept(self, template: Template, answer: Any) -> bool:
        """Whether to keep a question with this answer; counts it when kept."""
        counts = self.counts.setdefault(template.key, {})
        if not counts:
            counts.update(dict.fromkeys(template.answer_domain, 0))
        current = counts.get(answer, 0)
        ordered = sorted(counts.values())
        second = ordered[-2] if len(ordered) >= 2 else 0
        median = max(ordered[len(ordered) // 2] if ordered else 0, 5)
        if current > 1.1 * second or current > 5 * median:
            return False
        counts[answer] = current + 1
        self.template_counts[template.key] = self.template_counts.get(template.key, 0) + 1
        for table, key in ((self.totals, template.family), (self.template_totals, template.key)):
            total = table.setdefault(key, {})
            total[answer] = total.get(answer, 0) + 1
        return True


def _descriptor_codes(state: SceneState) -> tuple[np.ndarray, list[int], list[list[Any]]]:
    """Per object: attribute codes (N, 8) for telling objects apart, the bitmask of attributes usable
    to describe it, and the value each attribute contributes to a program / question."""
    cache = state.__dict__.setdefault("_fn_cache", {})
    if "descriptors" in cache:
        return cache["descriptors"]
    n = len(state.objects)
    codes = np.zeros((n, len(DESCRIPTOR_TYPES)), dtype=np.int64)
    usable: list[int] = []
    values: list[list[Any]] = []
    for o, obj in enumerate(state.objects):
        size, color = SIZES[int(state.size_codes[o, 0])], COLORS[int(state.color_codes[o, 0])]
        row_vals: list[Any] = [size, color, obj.material, obj.shape]
        codes[o, 0] = SIZES.index(size)
        codes[o, 1] = COLORS.index(color)
        codes[o, 2] = 0 if obj.material == "rubber" else 1
        codes[o, 3] = SHAPES.index(obj.shape)
        bits = 0b1111
        for b, tag in enumerate(DESCRIPTOR_TYPES[4:], start=4):
            has = any(k in obj.cycles for k in _TAG_CYCLES[tag])
            codes[o, b] = 1 if has else 0
            bits |= (1 << b) if has else 0
            row_vals.append(tag if has else None)
        usable.append(bits)
        values.append(row_vals)
    cache["descriptors"] = (codes, usable, values)
    return cache["descriptors"]


def _valid_masks(state: SceneState, candidates: frozenset) -> dict[int, np.ndarray]:
    """For each object of `candidates`, the descriptor masks that select it and only it."""
    cache = state.__dict__.setdefault("_fn_cache", {})
    key = ("masks", candidates)
    if key in cache:
        return cache[key]
    codes, usable, _ = _descriptor_codes(state)
    objs = sorted(candidates)
    sub = codes[objs]
    weights = 1 << np.arange(len(DESCRIPTOR_TYPES), dtype=np.int64)
    diff = ((sub[:, None, :] != sub[None, :, :]) * weights).sum(axis=2)  # bits where a and b differ
    out: dict[int, np.ndarray] = {}
    for a, o in enumerate(objs):
        others = np.delete(diff[a], a)
        ok = (_ALL_MASKS & ~usable[o]) == 0
        if others.size:
            ok &= ((_ALL_MASKS[:, None] & others[None, :]) != 0).all(axis=1)
        out[o] = _ALL_MASKS[ok]
    cache[key] = out
    return out


@dataclass
class Instance:
    """A question instance: the expanded program, slot values and answer."""

    template: Template
    program: list[dict]
    values: dict[str, Any]
    answer: Any


@dataclass
class _Search:
    template: Template
    state: SceneState
    rng: random.Random
    balancer: AnswerBalancer
    budget: int
    program: list[dict] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    node_map: dict[int, int] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    def run(self, k: int) -> Instance | None:
        t = self.template
        if k == len(t.nodes):
            answer = self.outputs[-1]
            if self.balancer.accept(t, answer):
                return Instance(t, [dict(n) for n in self.program], dict(self.values), answer)
            return None
        node = t.nodes[k]
        if node.type == "filter_unique":
            return self._expand_unique(k, node)
        fn = FUNCTIONS[node.type]
        args = [self.outputs[self.node_map[i]] for i in node.inputs]
        inputs = [self.node_map[i] for i in node.inputs]
        options = [[]]
        if node.slots:
            domains = [list(VALUE_TYPES[t.params[s]]) for s in node.slots]
            for d in domains:
                self.rng.shuffle(d)
            options = [[v] for v in domains[0]] if len(domains) == 1 else _product(domains)
        for vals in options:
            if self.budget <= 0:
                return None
            self.budget -= 1
            try:
                out = fn.impl(self.state, args, vals)
            except Invalid:
                continue
            mark = self._push({"type": node.type, "inputs": inputs, "value_inputs": list(vals)}, out, k)
            for slot, v in zip(node.slots, vals, strict=True):
                self.values[slot] = v
            if self._constraints_hold(k):
                found = self.run(k + 1)
                if found is not None:
                    return found
            self._pop(mark, node.slots)
        return None

    def _expand_unique(self, k: int, node) -> Instance | None:
        candidates = self.outputs[self.node_map[node.inputs[0]]]
        masks = _valid_masks(self.state, candidates)
        _, _, obj_values = _descriptor_codes(self.state)
        order = sorted(candidates)
        self.rng.shuffle(order)
        for o in order:
            allowed = masks[o][(masks[o] & ~node.allowed_mask) == 0]
            if allowed.size == 0 or self.budget <= 0:
                continue
            self.budget -= 1
            mask = int(allowed[self.rng.randrange(allowed.size)])
            mark = len(self.program)
            current = self.node_map[node.inputs[0]]
            for slot in node.slots:
                bit = DESCRIPTOR_TYPES.index(self.template.params[slot])
                if mask >> bit & 1:
                    value = obj_values[o][bit]
                    ftype = _DESCRIPTOR_FILTER[self.template.params[slot]]
                    vals = [value] if FUNCTIONS[ftype].values else [True]
                    self.program.append({"type": ftype, "inputs": [current], "value_inputs": vals})
                    self.outputs.append(None)  # intermediate filter outputs are not needed
                    current = len(self.program) - 1
                    self.values[slot] = value
                else:
                    self.values[slot] = ""
            self.program.append({"type": "unique", "inputs": [current], "value_inputs": []})
            self.outputs.append(o)
            self.node_map[k] = len(self.program) - 1
            if self._constraints_hold(k):
                found = self.run(k + 1)
                if found is not None:
                    return found
            del self.program[mark:], self.outputs[mark:]
            for slot in node.slots:
                self.values.pop(slot, None)
        return None

    def _push(self, node: dict, out: Any, k: int) -> int:
        mark = len(self.program)
        self.program.append(node)
        self.outputs.append(out)
        self.node_map[k] = mark
        return mark

    def _pop(self, mark: int, slots: list[str]) -> None:
        del self.program[mark:], self.outputs[mark:]
        for slot in slots:
            self.values.pop(slot, None)

    def _constraints_hold(self, k: int) -> bool:
        for i, j in self.template.out_neq:
            if max(i, j) == k and self.outputs[self.node_map[i]] == self.outputs[self.node_map[j]]:
                return False
        for a, b in self.template.neq:
            if a in self.values and b in self.values and self.values[a] and self.values[a] == self.values[b]:
                return False
        return True


def _product(domains: list[list[Any]]) -> list[list[Any]]:
    out: list[list[Any]] = [[]]
    for d in domains:
        out = [prefix + [v] for prefix in out for v in d]
    return out


def instantiate(
    template: Template, state: SceneState, rng: random.Random, balancer: AnswerBalancer, budget: int = 400
) -> Instance | None:
    """One balanced, valid instance of `template` on `state`, or None when the template does not apply
    (e.g. no orbiting object) or no instance passes rejection sampling within `budget` evaluations."""
    return _Search(template, state, rng, balancer, budget).run(0)
