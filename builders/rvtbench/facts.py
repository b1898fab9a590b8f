"""Per-object facts read off a (down-sampled) digital twin: attributes, events, pairwise relations.

These are what the reasoning tree's nodes and edges stand for and what the executor checks, so both
read the same numbers. Attributes and relations hold when they hold on most sampled frames (majority).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .dt import instance_id_order

MOVE_FRACTION = 0.08  # an object "moves" when its centre travels more than 8 % of the frame width
ATTRIBUTE_ORDER = ("size", "color", "material", "shape", "category")
# No phrase holds "before", "after", "yes" or "no": an order question's reference states its event and then
# its answer ("It appears partway through the video before ..."), and the judge reads the first such word.
EVENT_WORDS = {
    "moves_left": "moves to the left",
    "moves_right": "moves to the right",
    "moves_back_and_forth": "moves back and forth",
    "changes_color": "changes colour",
    "changes_size": "changes size",
    "appears_later": "appears partway through the video",
    "leaves_view": "leaves the view",
    "stays_still": "stays in place",
}
APPROACH_RATIO = (
    0.7  # "approaches": the centres' distance ends below 70 % of where it started (recedes: 1/0.7)
)
# Where an object is in the frame or towards the camera (spatial facts of one object, majority of frames).
POSITION_WORDS = {
    "leftmost": "is the leftmost object",
    "rightmost": "is the rightmost object",
    "nearest": "is nearest to the camera",
    "farthest": "is farthest from the camera",
    "left_half": "stays in the left half of the frame",
    "right_half": "stays in the right half of the frame",
}
# Object-to-object relations beyond the DT's spatial ones: shared attributes (semantic) and shared motion
# (temporal); each holds when the facts agree, so the executor checks the same numbers the tree used.
LIKE_RELATIONS = {
    "color": "same_color_as",
    "shape": "same_shape_as",
    "material": "same_material_as",
    "size": "same_size_as",
}
MOTION_EVENTS = ("moves_left", "moves_right", "moves_back_and_forth", "changes_color", "changes_size")
TEMPORAL_RELATION_WORDS = {
    "passes": "passes",
    "same_motion_as": "does the same thing as",
    "approaches": "moves towards",
    "moves_away_from": "moves away from",
    "approached_by": "is approached by",
    "left_behind_by": "is left behind by",
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
    positions: set[str] = field(default_factory=set)  # place in the frame / to the camera (POSITION_WORDS)
    likes: dict[str, set[str]] = field(
        default_factory=dict
    )  # other id -> shared attributes (same_color, ...)
    timed: dict[str, set[str]] = field(
        default_factory=dict
    )  # other id -> temporal relations (same_motion_as)
    onsets: dict[str, int] = field(default_factory=dict)  # event -> first sampled frame showing it

    def object_links(self, category: str | None = None) -> list[tuple[str, str, str]]:
        """(other id, relation, category) of every object-to-object relation, or only those of `category`."""
        links = [(o, r, "spatial") for o, rels in self.relations.items() for r in sorted(rels)]
        links += [(o, r, "semantic") for o, rels in self.likes.items() for r in sorted(rels)]
        links += [(o, "passes", "temporal") for o in sorted(self.passes)]
        links += [(o, r, "temporal") for o, rels in self.timed.items() for r in sorted(rels)]
        return [link for link in links if category is None or link[2] == category]

    def related(self, relation: str) -> set[str]:
        """The other ids this object stands in `relation` to (any category)."""
        if relation == "passes":
            return set(self.passes)
        out = set()
        for table in (self.relations, self.likes, self.timed):
            out |= {o for o, rels in table.items() if relation in rels}
        return out


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
    ids = sorted({i for f in frames for i in f["instances"]}, key=instance_id_order)
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
        if not events:
            events.append("stays_still")  # a temporal fact too: nothing happens to it over the video
        out[i] = ObjectFacts(
            i, [f["timestamp"] for f in seen], attrs, events, _mode([x["description"] for x in insts])
        )
        out[i].onsets = _onsets([f["timestamp"] for f in seen], insts, events, width)
    _relations(frames, out)
    _positions(frames, width, out)
    _likes(out)
    _approaches(frames, out)
    return out


def _approaches(frames: list[dict], facts: dict[str, ObjectFacts]) -> None:
    """Temporal relations from distances over time: a moving object approaches or moves away from another."""
    for a, fa in facts.items():
        if not any(e.startswith("moves") for e in fa.events):
            continue
        for b in facts:
            both = [f for f in frames if a in f["instances"] and b in f["instances"]]
            if a == b or len(both) < 2:
                continue
            d0, d1 = (
                float(np.hypot(*np.subtract(f["instances"][a]["center"], f["instances"][b]["center"])))
                for f in (both[0], both[-1])
            )
            if d1 < APPROACH_RATIO * d0:
                fa.timed.setdefault(b, set()).add("approaches")
                facts[b].timed.setdefault(a, set()).add("approached_by")
            elif d0 < APPROACH_RATIO * d1:
                fa.timed.setdefault(b, set()).add("moves_away_from")
                facts[b].timed.setdefault(a, set()).add("left_behind_by")


def _positions(frames: list[dict], width: int, facts: dict[str, ObjectFacts]) -> None:
    """Superlatives (leftmost, nearest, ...) and halves of the frame that hold on most sampled frames."""
    votes: dict[str, Counter] = {i: Counter() for i in facts}
    for f in frames:
        inst = f["instances"]
        if not inst:
            continue
        xs = {i: v["center"][0] for i, v in inst.items()}
        ds = {i: v["depth_stats"][0] for i, v in inst.items()}
        for name, table, pick in (
            ("leftmost", xs, min),
            ("rightmost", xs, max),
            ("nearest", ds, min),
            ("farthest", ds, max),
        ):
            if len(table) > 1:
                votes[pick(table, key=lambda i, t=table: (t[i], i))][name] += 1
        for i, x in xs.items():
            votes[i]["left_half" if x < width / 2 else "right_half"] += 1
    for i, f in facts.items():
        n = len(f.frames)
        f.positions = {name for name, c in votes[i].items() if c * 2 > n}


def _likes(facts: dict[str, ObjectFacts]) -> None:
    """Shared attributes and shared motion between every ordered pair of objects."""
    for a, fa in facts.items():
        for b, fb in facts.items():
            if a == b:
                continue
            same = {
                rel
                for key, rel in LIKE_RELATIONS.items()
                if key in fa.attributes and fa.attributes[key] == fb.attributes.get(key)
            }
            if same:
                fa.likes[b] = same
            shared = [e for e in MOTION_EVENTS if e in fa.events and e in fb.events]
            if shared:
                fa.timed[b] = {"same_motion_as"}


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


def _onsets(times: list[int], insts: list[dict], events: list[str], width: int) -> dict[str, int]:
    """The first sampled frame at which each event shows (for questions on the order of events).

    Motion: the centre first more than 2 % of the width from where it started; colour/size: the first frame
    whose value differs from the first; appearing: the first frame seen; leaving: the frame after the last.
    """
    out: dict[str, int] = {}
    x0 = insts[0]["center"][0]
    first_attrs = insts[0].get("attributes", {})
    for event in events:
        if event.startswith("moves"):
            hit = [
                t for t, inst in zip(times, insts, strict=True) if abs(inst["center"][0] - x0) > 0.02 * width
            ]
        elif event in ("changes_color", "changes_size"):
            key = "color" if event == "changes_color" else "size"
            hit = [
                t
                for t, inst in zip(times, insts, strict=True)
                if inst.get("attributes", {}).get(key) != first_attrs.get(key)
            ]
        elif event == "appears_later":
            hit = times[:1]
        elif event == "leaves_view":
            hit = [times[-1] + 1]
        else:
            hit = []
        if hit:
            out[event] = int(hit[0])
    return out


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
