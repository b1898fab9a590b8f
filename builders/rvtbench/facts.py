"""Per-object facts read off a (down-sampled) digital twin: attributes, events, pairwise relations.

These are what the reasoning tree's nodes and edges stand for and what the executor checks, so both
read the same numbers. Attributes and relations hold when they hold on most sampled frames (majority).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .dt import _id_key

MOVE_FRACTION = 0.08  # an object "moves" when its centre travels more than 8 % of the frame width
ATTRIBUTE_ORDER = ("size", "color", "material", "shape", "category")
EVENT_WORDS = {
    "moves_left": "moves to the left",
    "moves_right": "moves to the right",
    "moves_back_and_forth": "moves back and forth",
    "changes_color": "changes colour",
    "changes_size": "changes size",
    "appears_later": "appears after the start",
    "leaves_view": "leaves the view",
}


@dataclass
class ObjectFacts:
    """What is known of one instance over the sampled frames."""

    instance: str
    frames: list[int]
    attributes: dict[str, str]
    events: list[str]
    description: str
    relations: dict[str, set[str]] = field(default_factory=dict)  # other id -> relations holding mostly
    passes: set[str] = field(default_factory=set)  # other ids it passes (left/right flips over time)


def downsample(dt: dict, d: int) -> dict:
    """J_sampled = {J^(d*i)}: every d-th frame of the DT (paper Sec. 2.2), metadata kept."""
    if d < 1:
        raise ValueError(f"--downsample {d}: expected a positive frame interval")
    return {"metadata": dt["metadata"], "frames": dt["frames"][::d]}


def _mode(values: list[str]) -> str:
    counts = Counter(values)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def object_facts(sampled: dict) -> dict[str, ObjectFacts]:
    """Facts of every instance of the sampled DT, keyed by instance id."""
    frames = sampled["frames"]
    width = sampled["metadata"]["resolution"][1]
    first_t, last_t = frames[0]["timestamp"], frames[-1]["timestamp"]
    ids = sorted({i for f in frames for i in f["instances"]}, key=_id_key)
    out: dict[str, ObjectFacts] = {}
    for i in ids:
        seen = [f for f in frames if i in f["instances"]]
        insts = [f["instances"][i] for f in seen]
        keys = sorted({k for inst in insts for k in inst.get("attributes", {})})
        attrs = {
            k: _mode([inst["attributes"][k] for inst in insts if k in inst.get("attributes", {})])
            for k in keys
        }
        events = _events(insts, keys, width)
        if seen[0]["timestamp"] > first_t:
            events.append("appears_later")
        if seen[-1]["timestamp"] < last_t:
            events.append("leaves_view")
        out[i] = ObjectFacts(
            i, [f["timestamp"] for f in seen], attrs, events, _mode([x["description"] for x in insts])
        )
    _relations(frames, out)
    return out


def _events(insts: list[dict], keys: list[str], width: int) -> list[str]:
    events = []
    xs = np.array([inst["center"][0] for inst in insts])
    if len(xs) > 1:
        path = float(np.abs(np.diff(xs)).sum())
        net = float(xs[-1] - xs[0])
        if path > MOVE_FRACTION * width:
            if abs(net) > 0.6 * path:
                events.append("moves_right" if net > 0 else "moves_left")
            else:
                events.append("moves_back_and_forth")
    for key, event in (("color", "changes_color"), ("size", "changes_size")):
        if key in keys and len({inst["attributes"].get(key) for inst in insts}) > 1:
            events.append(event)
    return events


def _relations(frames: list[dict], facts: dict[str, ObjectFacts]) -> None:
    pair_counts: dict[tuple[str, str], Counter] = {}
    pair_frames: Counter = Counter()
    sides: dict[tuple[str, str], list[str]] = {}
    for f in frames:
        present = set(f["instances"])
        for a in present:
            for b in present:
                if a != b:
                    pair_frames[(a, b)] += 1
        for a, rel, b in f.get("relations", []):
            pair_counts.setdefault((a, b), Counter())[rel] += 1
            if rel in ("left_of", "right_of"):
                sides.setdefault((a, b), []).append(rel)
    for (a, b), counts in pair_counts.items():
        n = pair_frames[(a, b)]
        held = {rel for rel, c in counts.items() if c * 2 > n}
        if held:
            facts[a].relations[b] = held
        seq = sides.get((a, b), [])
        if len(seq) >= 2 and seq[0] != seq[-1]:
            facts[a].passes.add(b)
