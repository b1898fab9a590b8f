"""The functions of CycliST's functional programs (paper Table 13), evaluated on per-frame scene state.

The vocabulary is the official release's (`questions/handlers` of simon-kohaut/CycliST): its function
names (`filter_color`, `filter_size`, `filter_change_color`, `filter_enlarge`, `query_motion_period`, ...),
its argument conventions (`relate_*(x, R)` = the objects that x is R of, asked as
`include(y, relate(x, R))` = "is x R y?") and its value spelling (`"Cube"`, `"Metal"`, `True`/`"False"`
for cycle filters) all run unchanged; the project's own templates use the same names. Where the official
handlers contradict the paper the functions follow the paper (docs/benchmarks/cyclist.md lists each case).

Temporal quantifiers: `*_existential` (and the official `filter_color` / `filter_size` when they test a
property) hold when the property holds in at least one frame, `*_universal` when it holds in every frame.
A filter that *describes* an object (its output feeds `unique`, possibly through more filters) reads
the object's initial appearance, as the official generator describes objects: "the purple cube" is the
cube that starts purple. A function that cannot give a well-defined value raises Invalid (the sample is
then rejected, never answered). Each entry of FUNCTIONS records the function's input types, value-input
types and output type, which the template loader checks programs against.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .state import (
    COLORS,
    CYCLE_TYPES,
    DIRECTIONS,
    MATERIALS,
    RELATIONS,
    SHAPES,
    SIZES,
    SceneState,
)


class Invalid(Exception):
    """An intermediate value is undefined (e.g. the colour of a colour-changing object): reject."""


@dataclass(frozen=True)
class Function:
    """A program function: implementation and signature."""

    name: str
    impl: Callable[[SceneState, list, list], Any]
    inputs: tuple[str, ...]
    values: tuple[str, ...]
    output: str


# The value domains of the types a template slot or an answer may have.
VALUE_TYPES: dict[str, tuple[str, ...]] = {
    "Color": COLORS,
    "Size": SIZES,
    "Shape": SHAPES,
    "Material": MATERIALS,
    "Relation": RELATIONS,
    "Direction": DIRECTIONS,
}
ANSWER_TYPE_OF = {"Bool": "yes/no", "Integer": "integer", **{t: "attribute" for t in VALUE_TYPES}}

FUNCTIONS: dict[str, Function] = {}


def _register(name: str, inputs: tuple[str, ...], values: tuple[str, ...], output: str):
    def wrap(impl):
        FUNCTIONS[name] = Function(name, impl, inputs, values, output)
        return impl

    return wrap


def _cache(state: SceneState) -> dict:
    cache = state.__dict__.get("_fn_cache")
    if cache is None:
        cache = state.__dict__["_fn_cache"] = {}
    return cache


# ----- scene, unique, sets, logic ---------------------------------------------------------------
@_register("scene", (), (), "ObjectSet")
def _scene(state, inputs, values):
    return frozenset(range(len(state.objects)))


@_register("unique", ("ObjectSet",), (), "Object")
def _unique(state, inputs, values):
    if len(inputs[0]) != 1:
        raise Invalid
    return next(iter(inputs[0]))


_register("union", ("ObjectSet", "ObjectSet"), (), "ObjectSet")(lambda s, i, v: i[0] | i[1])
_register("intersect", ("ObjectSet", "ObjectSet"), (), "ObjectSet")(lambda s, i, v: i[0] & i[1])
_register("except", ("ObjectSet", "ObjectSet"), (), "ObjectSet")(lambda s, i, v: i[0] - i[1])
_register("include", ("Object", "ObjectSet"), (), "Bool")(lambda s, i, v: i[0] in i[1])
_register("exist", ("ObjectSet",), (), "Bool")(lambda s, i, v: len(i[0]) > 0)
_register("count", ("ObjectSet",), (), "Integer")(lambda s, i, v: len(i[0]))
_register("logical_and", ("Bool", "Bool"), (), "Bool")(lambda s, i, v: bool(i[0] and i[1]))
_register("logical_or", ("Bool", "Bool"), (), "Bool")(lambda s, i, v: bool(i[0] or i[1]))
_register("logical_not", ("Bool",), (), "Bool")(lambda s, i, v: not i[0])


# ----- filters ----------------------------------------------------------------------------------
def _filter_attribute(name: str, attr: str, quantifier: str, value_type: str) -> None:
    table = f"{attr}_ever" if quantifier == "existential" else f"{attr}_always"

    def impl(state, inputs, values):
        per_object = getattr(state, table)
        want = values[0]
        if quantifier == "existential":
            return frozenset(o for o in inputs[0] if want in per_object[o])
        return frozenset(o for o in inputs[0] if per_object[o] == want)

    _register(name, ("ObjectSet",), (value_type,), "ObjectSet")(impl)


for _q in ("existential", "universal"):
    _filter_attribute(f"filter_color_{_q}", "color", _q, "Color")
    _filter_attribute(f"filter_size_{_q}", "size", _q, "Size")
# The official names: quantified (existential, as the official registry wires them) where they test a
# property; describing by initial appearance where they single out an object (see `execute`).
_filter_attribute("filter_color", "color", "existential", "Color")
_filter_attribute("filter_size", "size", "existential", "Size")


def _describe_initial(attr: str):
    def impl(state, inputs, values):
        codes = state.color_codes if attr == "color" else state.size_codes
        names = COLORS if attr == "color" else SIZES
        return frozenset(o for o in inputs[0] if names[int(codes[o, 0])] == values[0])

    return impl


# Implementations a describing filter uses instead of the quantified one.
DESCRIBING = {"filter_color": _describe_initial("color"), "filter_size": _describe_initial("size")}


@_register("filter_shape", ("ObjectSet",), ("Shape",), "ObjectSet")
def _filter_shape(state, inputs, values):
    return frozenset(o for o in inputs[0] if state.objects[o].shape == values[0])


@_register("filter_material", ("ObjectSet",), ("Material",), "ObjectSet")
def _filter_material(state, inputs, values):
    return frozenset(o for o in inputs[0] if state.objects[o].material == values[0])


def _filter_cycle(name: str, kinds: tuple[str, ...]) -> None:
    """Objects with (value False: without) one of the cycle types. The official programs pass a value
    (True, None, "False" or an orbit centre's index); only False / "False" changes the meaning."""

    def impl(state, inputs, values):
        want = not (values and values[0] is False)
        return frozenset(o for o in inputs[0] if any(k in state.objects[o].cycles for k in kinds) == want)

    _register(name, ("ObjectSet",), (), "ObjectSet")(impl)


# official name -> the cycle types it selects
CYCLE_FILTERS = {
    "filter_orbit": ("orbit",),
    "filter_linear": ("linear",),
    "filter_rotate": ("rotate",),
    "filter_change_color": ("recolor",),
    "filter_enlarge": ("resize",),
    "filter_motion": ("orbit", "linear"),
}
for _name, _kinds in CYCLE_FILTERS.items():
    _filter_cycle(_name, _kinds)


# ----- queries ----------------------------------------------------------------------------------
@_register("query_shape", ("Object",), (), "Shape")
def _query_shape(state, inputs, values):
    return state.objects[inputs[0]].shape


@_register("query_material", ("Object",), (), "Material")
def _query_material(state, inputs, values):
    return state.objects[inputs[0]].material


def _query_static(attr: str, value_type: str) -> None:
    def impl(state, inputs, values):
        value = getattr(state, f"{attr}_always")[inputs[0]]
        if value is None:  # the attribute changes during the video: no single answer
            raise Invalid
        return value

    _register(f"query_{attr}", ("Object",), (), value_type)(impl)


def _query_transition(attr: str, cycle: str, value_type: str) -> None:
    def initial(state, inputs, values):
        codes = state.color_codes if attr == "color" else state.size_codes
        return (COLORS if attr == "color" else SIZES)[int(codes[inputs[0], 0])]

    def final(state, inputs, values):
        c = state.objects[inputs[0]].cycles.get(cycle)
        if c is None or len(c.values) < 2:  # no transition to name
            raise Invalid
        return c.values[1]

    _register(f"query_{attr}_initial", ("Object",), (), value_type)(initial)
    _register(f"query_{attr}_final", ("Object",), (), value_type)(final)


_query_static("color", "Color")
_query_static("size", "Size")
_query_transition("color", "recolor", "Color")
_query_transition("size", "resize", "Size")


def _cycle_of(state: SceneState, obj: int, kind: str):
    c = state.objects[obj].cycles.get(kind)
    if c is None:
        raise Invalid
    return c


@_register("query_orbit", ("Object",), (), "Object")
def _query_orbit(state, inputs, values):
    """The centre object of an orbit."""
    return _cycle_of(state, inputs[0], "orbit").center


@_register("query_orbit_direction", ("Object",), (), "Direction")
def _query_orbit_direction(state, inputs, values):
    return _cycle_of(state, inputs[0], "orbit").direction


def _query_cycle_numbers(kind: str) -> None:
    _register(f"query_{kind}_period", ("Object",), (), "Integer")(
        lambda s, i, v: _cycle_of(s, i[0], kind).period
    )
    _register(f"query_{kind}_passes", ("Object",), (), "Integer")(
        lambda s, i, v: s.num_frames // _cycle_of(s, i[0], kind).period
    )


for _kind in CYCLE_TYPES:
    _query_cycle_numbers(_kind)


# The official registry's names for two of them (its handlers read keys the scenes lack; the meaning is
# the paper's query_<cycle>_period).
FUNCTIONS["query_enlarge_period"] = Function(
    "query_enlarge_period", FUNCTIONS["query_resize_period"].impl, ("Object",), (), "Integer"
)
FUNCTIONS["query_color_period"] = Function(
    "query_color_period", FUNCTIONS["query_recolor_period"].impl, ("Object",), (), "Integer"
)


@_register("query_motion_period", ("Object",), (), "Integer")
def _query_motion_period(state, inputs, values):
    """The period of the object's motion cycle (orbit, else linear), as the official handler reads it."""
    cycles = state.objects[inputs[0]].cycles
    for kind in ("orbit", "linear"):
        if kind in cycles:
            return cycles[kind].period
    raise Invalid


# ----- relate -----------------------------------------------------------------------------------
def _relate(quantifier: str) -> None:
    """relate_<q>(x, R): the objects a such that x is R of a (in some / every frame), the official
    handlers' direction: `relationships[R]` pairs (a, x) mean "x is R of a", and the question "is x R
    y?" is `include(y, relate(x, R))`."""

    def impl(state, inputs, values):
        key = ("relate", quantifier, values[0], inputs[0])
        cache = _cache(state)
        out = cache.get(key)
        if out is None:
            table = state.rel_ever if quantifier == "existential" else state.rel_always
            if values[0] not in table:
                raise Invalid
            out = cache[key] = frozenset(table[values[0]][:, inputs[0]].nonzero()[0].tolist())
        return out

    _register(f"relate_{quantifier}", ("Object",), ("Relation",), "ObjectSet")(impl)


_relate("existential")
_relate("universal")


# ----- same_* -----------------------------------------------------------------------------------
def _same(attr: str) -> None:
    def impl(state, inputs, values):
        o = inputs[0]
        if attr in ("shape", "material"):
            own = getattr(state.objects[o], attr)
            return frozenset(p for p, obj in enumerate(state.objects) if p != o and getattr(obj, attr) == own)
        always = getattr(state, f"{attr}_always")
        if always[o] is None:  # "the same colour" as something that changes colour is undefined
            raise Invalid
        return frozenset(p for p, v in enumerate(always) if p != o and v == always[o])

    _register(f"same_{attr}", ("Object",), (), "ObjectSet")(impl)


for _attr in ("size", "color", "material", "shape"):
    _same(_attr)


# ----- comparisons ------------------------------------------------------------------------------
for _t in ("Color", "Size", "Shape", "Material"):
    _register(f"equal_{_t.lower()}", (_t, _t), (), "Bool")(lambda s, i, v: i[0] == i[1])
_register("equal_integer", ("Integer", "Integer"), (), "Bool")(lambda s, i, v: i[0] == i[1])
_register("less_than", ("Integer", "Integer"), (), "Bool")(lambda s, i, v: i[0] < i[1])
_register("greater_than", ("Integer", "Integer"), (), "Bool")(lambda s, i, v: i[0] > i[1])
_register("equal_object", ("Object", "Object"), (), "Bool")(lambda s, i, v: i[0] == i[1])


def _equal_quantified(attr: str, cycle: str, quantifier: str) -> None:
    """Frame-wise comparison of two objects' colours (sizes). Sizes are two discrete states per frame,
    so the comparison is always defined. Colours interpolate between key frames: when both objects
    cycle colour out of step (different periods or different colour pairs), which frames match depends
    on where the interpolated transitions are cut, so the answer is ambiguous: Invalid."""

    def impl(state, inputs, values):
        a, b = inputs
        if attr == "color":
            ca, cb = state.objects[a].cycles.get(cycle), state.objects[b].cycles.get(cycle)
            if (
                ca is not None
                and cb is not None
                and (ca.period != cb.period or set(ca.values) != set(cb.values))
            ):
                raise Invalid
        codes = state.color_codes if attr == "color" else state.size_codes
        same = codes[a] == codes[b]
        return bool(same.any()) if quantifier == "existential" else bool(same.all())

    _register(f"equal_{attr}_{quantifier}", ("Object", "Object"), (), "Bool")(impl)


for _q in ("existential", "universal"):
    _equal_quantified("color", "recolor", _q)
    _equal_quantified("size", "resize", _q)


# ----- running a program ------------------------------------------------------------------------
_VALUE_ALIASES = {"mymetal": "metal", "metallic": "metal", "true": True, "false": False, "thing": None}


def normalise_value(value: Any) -> Any:
    """A value input as the functions compare it: the official spelling ("Cube", "Metal", "True",
    "False") and the project's ("cube", "metal", true) read alike."""
    if isinstance(value, str):
        low = value.strip().lower()
        return _VALUE_ALIASES.get(low, low)
    return value


def describing_nodes(program: list[dict]) -> set[int]:
    """Indices of the filter nodes that describe an object: their output reaches a `unique` node
    through filter nodes only (CLEVR's expanded `filter_unique`)."""
    consumers: dict[int, list[int]] = {}
    for k, node in enumerate(program):
        for i in node.get("inputs", []):
            consumers.setdefault(i, []).append(k)
    out: set[int] = set()
    for k in range(len(program) - 1, -1, -1):
        if not str(program[k].get("type", "")).startswith("filter_"):
            continue
        if any(program[c]["type"] == "unique" or c in out for c in consumers.get(k, [])):
            out.add(k)
    return out


def run_steps(program: list[dict], state: SceneState, outputs: list[Any]) -> Iterator[int]:
    """Run an expanded program node by node (nodes with type, inputs, value_inputs; the official
    `side_inputs` too), appending each node's output to `outputs` and yielding its index; raises
    Invalid when an intermediate value is undefined and KeyError on an unknown function."""
    describing = describing_nodes(program)
    for k, node in enumerate(program):
        fn = FUNCTIONS[node["type"]]
        impl = DESCRIBING.get(node["type"], fn.impl) if k in describing else fn.impl
        args = [outputs[i] for i in node.get("inputs", [])]
        raw = node.get("value_inputs", node.get("side_inputs", [])) or []
        outputs.append(impl(state, args, [normalise_value(v) for v in raw]))
        yield k


def execute(program: list[dict], state: SceneState) -> list[Any]:
    """Every node's output of a program (see run_steps); raises Invalid / KeyError as run_steps does."""
    outputs: list[Any] = []
    for _ in run_steps(program, state, outputs):
        pass
    return outputs
