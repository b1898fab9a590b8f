"""Digital-twin JSON (paper eq. 3-4): per-instance statistics, qualitative spatial relations, schema check.

Depth is stored in one convention for every source: "distance" (larger = farther) scaled to [0, 255] over
the video, so the paper's "same distance when depth means differ by at most 10" applies to perception
(Depth Anything, relative inverse depth) and synthetic (camera z-depth) twins alike.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from harness.api import write_atomic
from harness_metrics import encode_rle

SCHEMA_PATH = Path(__file__).with_name("dt_schema.json")
SAME_DEPTH_THRESHOLD = 10.0  # paper Sec. 2.2: depth means within 10 are "approximately the same distance"
DEPTH_RANGE = (0.0, 255.0)
SIDE_MARGIN = (
    0.05  # centres closer than 5 % of the width horizontally are neither left nor right of each other
)
RELATION_WORDS = {
    "left_of": "to the left of",
    "right_of": "to the right of",
    "in_front_of": "in front of",
    "behind": "behind",
    "same_depth_as": "at about the same distance as",
}


@lru_cache(maxsize=1)
def dt_schema() -> dict:
    """The DT JSON Schema kept in the repository (builders/rvtbench/dt_schema.json)."""
    return json.loads(SCHEMA_PATH.read_text())


def validate_dt(dt: dict, where: str = "digital twin") -> None:
    """Raise ValueError naming the first schema violation (path and message)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(dt_schema())
    for err in sorted(validator.iter_errors(dt), key=lambda e: list(e.path)):
        path = "/".join(str(p) for p in err.path) or "(root)"
        raise ValueError(f"{where}: schema violation at {path}: {err.message}")


def normalise_depth(values: np.ndarray, lo: float, hi: float, inverse: bool = False) -> np.ndarray:
    """Scale depth to [0, 255] "distance" (larger = farther); `inverse` for disparity-like model outputs."""
    span = hi - lo if hi > lo else 1.0
    scaled = (np.asarray(values, dtype=np.float64) - lo) / span * DEPTH_RANGE[1]
    return DEPTH_RANGE[1] - scaled if inverse else scaled


def instance_record(
    mask: np.ndarray,
    depth: np.ndarray,
    description: str,
    features: dict,
    score: float = 1.0,
    attributes: dict | None = None,
    rle: dict | None = None,
    pixels: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict:
    """One instance of one frame: RLE mask, box, area, centre, [mean, std] depth over the mask (eq. 4).

    `rle` (the mask's COCO RLE) and `pixels` (`np.nonzero(mask)`) save work when the caller has them."""
    ys, xs = pixels if pixels is not None else np.nonzero(mask)
    values = depth[ys, xs].astype(np.float64)
    rec = {
        "mask": dict(rle) if rle is not None else encode_rle(mask)[0],
        "bbox": [
            float(xs.min()),
            float(ys.min()),
            float(xs.max() - xs.min() + 1),
            float(ys.max() - ys.min() + 1),
        ],
        "area": int(len(ys)),
        "center": [round(float(xs.mean()), 3), round(float(ys.mean()), 3)],
        "score": round(float(score), 6),
        "depth_stats": [round(float(values.mean()), 4), round(float(values.std()), 4)],
        "description": description,
        "visual_features": features,
    }
    if attributes:
        rec["attributes"] = dict(attributes)
    return rec


def pair_relations(a: dict, b: dict, width: int, threshold: float = SAME_DEPTH_THRESHOLD) -> list[str]:
    """Qualitative relations of instance a to instance b from centres and depth means (no numbers)."""
    out = []
    dx = a["center"][0] - b["center"][0]
    if abs(dx) > SIDE_MARGIN * width:
        out.append("left_of" if dx < 0 else "right_of")
    dd = a["depth_stats"][0] - b["depth_stats"][0]
    if abs(dd) <= threshold:
        out.append("same_depth_as")
    else:
        out.append("in_front_of" if dd < 0 else "behind")
    return out


def frame_relations(instances: dict[str, dict], width: int, threshold: float = SAME_DEPTH_THRESHOLD) -> list:
    """Every ordered pair's relations in one frame, as [subject, relation, object] triples."""
    ids = sorted(instances, key=instance_id_order)
    return [
        [i, rel, j]
        for i in ids
        for j in ids
        if i != j
        for rel in pair_relations(instances[i], instances[j], width, threshold)
    ]


def spatial_description(instances: dict[str, dict], relations: list) -> str:
    """The frame's spatial description in words (paper: "front", "back", "next to"; no numerical values)."""
    names = {i: _short(inst["description"]) for i, inst in instances.items()}
    by_pair: dict[tuple[str, str], list[str]] = {}
    for i, rel, j in relations:
        if instance_id_order(i) < instance_id_order(j):
            by_pair.setdefault((i, j), []).append(RELATION_WORDS[rel])
    sentences = [
        f"The {names[i]} is {' and '.join(rels)} the {names[j]}." for (i, j), rels in sorted(by_pair.items())
    ]
    return " ".join(sentences) if sentences else "No two objects are visible together."


def _short(description: str) -> str:
    text = description.strip().rstrip(".")
    for article in ("a ", "an ", "the "):
        if text.lower().startswith(article):
            return text[len(article) :]
    return text


def instance_id_order(i: str) -> tuple[int, str]:
    """Sort key of instance ids: numeric ids in numeric order, then the others by name."""
    return (int(i), i) if str(i).isdigit() else (1 << 30, str(i))


def write_dt(dt: dict, path: Path) -> None:
    """Validate and write one DT JSON (compact, sorted keys: the same input gives the same bytes)."""
    validate_dt(dt, str(path))
    write_atomic(path, json.dumps(dt, sort_keys=True, separators=(",", ":")))


def instance_ids(dt: dict) -> list[str]:
    """Every instance id appearing in any frame, in numeric order."""
    return sorted({i for f in dt["frames"] for i in f["instances"]}, key=instance_id_order)
