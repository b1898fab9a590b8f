"""The paper's tables (2-4): every metric per reasoning category x level and overall, with sample counts.

A sample with several categories counts in each of them (as the paper's per-category columns do).
Dataset-level metrics are computed per cell: cIoU (sum of intersections / sum of unions), AP@50
(pycocotools over every frame's boxes), BLEU-4 and CIDEr-D (document frequencies over the cell's corpus).
BERTScore runs when a scoring model is configured (HARNESS_BERTSCORE_MODEL), else it is reported as not computed.
Segmentation cells count the masks per source (`mask_sources`: "model", a box-to-mask pipeline, or none).
"""

from __future__ import annotations

import math

import numpy as np

from metrics import BertScoreUnavailable, ap50, bertscore, bleu4, cider_d, rouge_l

from .hooks import _size, raster

CATEGORIES = ("semantic", "spatial", "temporal")
LEVELS = (1, 2, 3, 4)


def _cells(records: list[dict]) -> dict[str, list[dict]]:
    cells: dict[str, list[dict]] = {"overall": []}
    for r in records:
        if r.get("error") or r.get("parsed") is None:
            continue
        doc = r["doc"]
        cells["overall"].append(r)
        for c in doc["categories"]:
            cells.setdefault(f"{c}|L{doc['level']}", []).append(r)
    order = ["overall"] + [f"{c}|L{lv}" for c in CATEGORIES for lv in LEVELS]
    return {k: cells.get(k, []) for k in order}


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def _segmentation(rows: list[dict]) -> dict:
    scored = [r for r in rows if (r.get("scores") or {}).get("J&F") is not None]
    out = {
        name: _num(np.mean([r["scores"][name] for r in scored])) if scored else None
        for name in ("J", "F", "J&F")
    }
    out["n_not_applicable"] = len(rows) - len(scored)
    sources: dict[str, int] = {}
    for r in rows:  # which pipeline made the masks: "model", a box-to-mask pipeline, or none
        extra = r["parsed"].get("extra") or {}
        source = "none (not applicable)" if extra.get("not_applicable") else extra.get("mask_source", "model")
        sources[source] = sources.get(source, 0) + 1
    out["mask_sources"] = dict(sorted(sources.items()))
    return out


def _grounding(rows: list[dict]) -> dict:
    inter = union = 0
    ious, preds, gts = [], [], []
    for n, r in enumerate(rows):
        doc, target = r["doc"], r["target"]
        h, w = _size(doc, target)
        answer = r["parsed"]["answer"] if r["parsed"]["valid"] else [[] for _ in target["frames"]]
        p, g = raster(answer, h, w), raster(target["boxes"], h, w)
        i, u = np.count_nonzero(p & g), np.count_nonzero(p | g)
        inter, union = inter + i, union + u
        ious.append(1.0 if u == 0 else i / u)
        for t in range(len(target["frames"])):
            image = n * 10000 + t
            gts += [{"image_id": image, "bbox": b} for b in target["boxes"][t]]
            preds += [{"image_id": image, "bbox": b, "score": 1.0} for b in answer[t]]
    return {
        "cIoU": _num(inter / union) if union else (1.0 if rows else None),
        "gIoU": _num(np.mean(ious)) if ious else None,
        "AP@50": _num(ap50(preds, gts)) if gts else None,
    }


def _text(rows: list[dict]) -> dict:
    cands = [r["parsed"]["answer"] if r["parsed"]["valid"] else "" for r in rows]
    refs = [[r["target"]["text"]] for r in rows]
    out = {
        "BLEU-4": _num(bleu4(cands, refs)),
        "ROUGE-L": _num(rouge_l(cands, refs)),
        "CIDEr-D": _num(cider_d(cands, refs)),
    }
    try:
        out["BERTScore"] = _num(bertscore(cands, refs)["f1"])
    except BertScoreUnavailable as err:
        out["BERTScore"] = None
        out["BERTScore_reason"] = f"not computed: {err}"
    return out


def aggregate(records: list[dict], task) -> dict:
    """{'by_category_level': {cell: {n_samples, metrics...}}} for the task's type."""
    table = {}
    for cell, rows in _cells(records).items():
        entry: dict = {"n_samples": len(rows)}
        if rows:
            task_type = rows[0]["doc"]["task_type"]
            metrics = {"segmentation": _segmentation, "grounding": _grounding}.get(task_type, _text)(rows)
            entry.update(metrics)
        table[cell] = entry
    return {"by_category_level": table}
