"""Reasoning trees (paper Sec. 2.2): a DAG of entities and relations rooted at a selected object.

Nodes are objects, attribute values, events and positions; edges carry a relation and a reasoning category
(semantic: attributes and shared attributes; spatial: positions in the frame and positional relations;
temporal: events, passing and shared motion). The tree is grown breadth-first from the root without
revisiting a node, so every node has one depth (its distance from the root) and `subtree(tree, L)` is
exactly the nodes within L steps and the edges among them. With `category` the tree holds only relations
of that kind (the paper's query categories: the category is chosen first, then the tree is built from it).
"""

from __future__ import annotations

import random

from .facts import ATTRIBUTE_ORDER, ObjectFacts

MAX_DEPTH = 4
RELATIONS_PER_OBJECT = 1  # one new object per object: relation chains, so levels reach further objects
LEAF_CATEGORY = {"attribute": "semantic", "event": "temporal", "position": "spatial"}


def _object_node(i: str) -> str:
    return f"o{i}"


def build_tree(
    root: str,
    facts: dict[str, ObjectFacts],
    rng: random.Random,
    max_depth: int = MAX_DEPTH,
    category: str | None = None,
) -> dict:
    """The reasoning tree R_i = (V_i, E_i) of object `root`, grown to `max_depth` steps (one category's
    relations when `category` is given, else every kind)."""
    nodes = {_object_node(root): {"id": _object_node(root), "kind": "object", "instance": root, "depth": 0}}
    edges: list[dict] = []
    frontier = [root]
    for depth in range(1, max_depth + 1):
        next_frontier = []
        for obj in frontier:
            src = _object_node(obj)
            f = facts[obj]
            names = [k for k in ATTRIBUTE_ORDER if k in f.attributes] + sorted(
                set(f.attributes) - set(ATTRIBUTE_ORDER)
            )
            for name in names if category in (None, "semantic") else []:
                nid = f"{src}.{name}"
                nodes[nid] = {
                    "id": nid,
                    "kind": "attribute",
                    "name": name,
                    "value": f.attributes[name],
                    "depth": depth,
                }
                edges.append(
                    {"source": src, "target": nid, "relation": f"has_{name}", "category": "semantic"}
                )
            for event in f.events if category in (None, "temporal") else []:
                nid = f"{src}.{event}"
                nodes[nid] = {"id": nid, "kind": "event", "event": event, "depth": depth}
                edges.append({"source": src, "target": nid, "relation": event, "category": "temporal"})
            for pos in sorted(f.positions) if category in (None, "spatial") else []:
                nid = f"{src}.{pos}"
                nodes[nid] = {"id": nid, "kind": "position", "position": pos, "depth": depth}
                edges.append({"source": src, "target": nid, "relation": pos, "category": "spatial"})
            links = [link for link in f.object_links(category) if _object_node(link[0]) not in nodes]
            rng.shuffle(links)
            used: set[str] = set()
            for other, rel, category in links:
                if len(used) >= RELATIONS_PER_OBJECT and other not in used:
                    continue
                used.add(other)
                nid = _object_node(other)
                if nid not in nodes:
                    nodes[nid] = {"id": nid, "kind": "object", "instance": other, "depth": depth}
                    next_frontier.append(other)
                if nodes[nid]["depth"] == depth:
                    edges.append({"source": src, "target": nid, "relation": rel, "category": category})
        frontier = next_frontier
    return {
        "root": _object_node(root),
        "nodes": sorted(nodes.values(), key=lambda n: (n["depth"], n["id"])),
        "edges": edges,
    }


def subtree(tree: dict, level: int) -> dict:
    """R_{i,L}: the nodes within `level` steps of the root and the edges among them."""
    keep = {n["id"] for n in tree["nodes"] if n["depth"] <= level}
    return {
        "root": tree["root"],
        "level": level,
        "nodes": [n for n in tree["nodes"] if n["id"] in keep],
        "edges": [e for e in tree["edges"] if e["source"] in keep and e["target"] in keep],
    }


def tree_depth(tree: dict) -> int:
    """The largest node depth of a tree."""
    return max(n["depth"] for n in tree["nodes"])


# -- referring expressions: a chain through the sub-tree, executed on the DT ------------------------------


def expression_paths(sub: dict) -> list[list[dict]]:
    """Chains of object-to-object edges from the root, each as long as the sub-tree allows (level - 1)."""
    by_source: dict[str, list[dict]] = {}
    nodes = {n["id"]: n for n in sub["nodes"]}
    for e in sub["edges"]:
        if nodes[e["target"]]["kind"] == "object":
            by_source.setdefault(e["source"], []).append(e)
    paths: list[list[dict]] = [[]]
    for _ in range(sub["level"] - 1):
        longer = [p + [e] for p in paths for e in by_source.get(p[-1]["target"] if p else sub["root"], [])]
        if not longer:
            break
        paths = longer
    return paths


def leaves_of(sub: dict, node_id: str) -> list[dict]:
    """Attribute and event edges leaving `node_id` inside the sub-tree."""
    nodes = {n["id"]: n for n in sub["nodes"]}
    return [e for e in sub["edges"] if e["source"] == node_id and nodes[e["target"]]["kind"] != "object"]


def make_expression(sub: dict, path: list[dict], rng: random.Random, prefer_event: bool) -> dict:
    """A nested constraint {instance, attrs, events, positions, rel, child, categories} along `path`."""
    nodes = {n["id"]: n for n in sub["nodes"]}
    chain = [sub["root"]] + [e["target"] for e in path]
    expr: dict | None = None
    for k in range(len(chain) - 1, -1, -1):
        node = chain[k]
        leaves = leaves_of(sub, node)
        attrs, events = {}, []
        last = k == len(chain) - 1
        attr_edges = [e for e in leaves if nodes[e["target"]]["kind"] == "attribute"]
        event_edges = [e for e in leaves if nodes[e["target"]]["kind"] == "event"]
        pos_edges = [e for e in leaves if nodes[e["target"]]["kind"] == "position"]
        if 0 < k < len(chain) - 1:
            attr_edges, event_edges, pos_edges = [], [], []  # intermediate objects: reached by relations only
        if event_edges and (prefer_event or not attr_edges):
            events.append(nodes[rng.choice(event_edges)["target"]]["event"])
        if attr_edges and (last or not events):
            chosen = rng.sample(attr_edges, k=min(len(attr_edges), 2 if last else 1))
            attrs = {nodes[e["target"]]["name"]: nodes[e["target"]]["value"] for e in chosen}
        positions = []
        if pos_edges and (last or not (attrs or events)):
            positions.append(nodes[rng.choice(pos_edges)["target"]]["position"])
        rel = path[k]["relation"] if k < len(path) else None
        cats = {"semantic"} if attrs else set()
        cats |= {"temporal"} if events else set()
        cats |= {"spatial"} if positions else set()
        if rel is not None:
            cats |= {path[k]["category"]} | set(expr["categories"])
        expr = {
            "instance": nodes[node]["instance"],
            "attrs": attrs,
            "events": events,
            "positions": positions,
            "rel": rel,
            "child": expr if rel is not None else None,
            "categories": sorted(cats),
        }
    return expr


def execute(expr: dict, facts: dict[str, ObjectFacts]) -> list[str]:
    """The instances satisfying a constraint on the DT facts (the ground-truth referents)."""
    child = execute(expr["child"], facts) if expr.get("child") else None
    out = []
    for i, f in facts.items():
        if any(f.attributes.get(k) != v for k, v in expr["attrs"].items()):
            continue
        if any(ev not in f.events for ev in expr["events"]):
            continue
        if any(p not in f.positions for p in expr.get("positions", [])):
            continue
        if expr.get("rel"):
            targets = f.related(expr["rel"])
            if not any(j in targets and j != i for j in child):
                continue
        out.append(i)
    return out
