"""The paper's tables (2-4): every metric per reasoning category x level and overall, with sample counts.

A sample with several categories counts in each of them (as the paper's per-category columns do).
Dataset-level metrics are computed per cell: cIoU and gIoU as LISA (cIoU = sum of intersections /
(sum of unions + 1e-10) over every frame of the cell; gIoU = the mean per-frame IoU, each frame one image),
AP@50 (pycocotools over every frame's boxes), BLEU-4 and CIDEr-D (document frequencies over the cell's corpus;
CIDEr-D on pycocoevalcap's own scale, 10 = perfect). Captions are PTB-tokenized once per task (the references
in one batch, the candidates in another, as COCOEvalCap) by the active tokenizer, recorded as "tokenizer".
BERTScore runs when a scoring model is configured (HARNESS_BERTSCORE_MODEL), else it is reported as not computed.
Invalid answers (no usable masks or boxes) are inside every cell: J = F = 0, IoU 0 on each of their frames
(`n_invalid` counts them). Segmentation cells count the masks per source (`mask_sources`: "model", a
box-to-mask pipeline, or "none (invalid answer)").
"""

from __future__ import annotations

import math

import numpy as np

from harness_metrics import BertScoreUnavailable, ap50, bertscore, bleu4, cider_d, rouge_l
from harness_metrics.grounding import ciou_from_counts, frame_areas, frame_iou
from harness_metrics.ptb_java import active_tokenizer, tokenize_captions

from .boxes import raster
from .targets import video_size

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
    """Mean J, F, J&F over every scored row (invalid answers score 0), the invalid count, masks per source."""
    out = {name: _num(np.mean([r["scores"][name] for r in rows])) for name in ("J", "F", "J&F")}
    out["n_invalid"] = sum(1 for r in rows if not r["parsed"]["valid"])
    sources: dict[str, int] = {}
    for r in rows:  # which pipeline made the masks: "model", a box-to-mask pipeline, or none (invalid answer)
        extra = r["parsed"].get("extra") or {}
        source = extra.get("mask_source", "model") if r["parsed"]["valid"] else "none (invalid answer)"
        sources[source] = sources.get(source, 0) + 1
    out["mask_sources"] = dict(sorted(sources.items()))
    return out


def _grounding(rows: list[dict]) -> dict:
    """cIoU, gIoU (LISA) and AP@50 of one cell; an invalid answer has IoU 0 on every frame (no frame scores 1)."""
    inters, unions, ious, det_preds, det_gts = [], [], [], [], []
    for n, r in enumerate(rows):
        doc, target, valid = r["doc"], r["target"], r["parsed"]["valid"]
        h, w = video_size(doc, target)
        answer = r["parsed"]["answer"] if valid else [[] for _ in target["frames"]]
        ((inter, union),) = frame_areas([raster(answer, h, w)], [raster(target["boxes"], h, w)])
        inters.append(inter)
        unions.append(union)
        ious.append(frame_iou(inter, union) if valid else np.zeros(len(inter)))
        for t in range(len(target["frames"])):
            image = n * 10000 + t
            det_gts += [{"image_id": image, "bbox": b} for b in target["boxes"][t]]
            det_preds += [{"image_id": image, "bbox": b, "score": 1.0} for b in answer[t]]
    return {
        "cIoU": _num(ciou_from_counts(np.concatenate(inters), np.concatenate(unions))) if rows else None,
        "gIoU": _num(float(np.concatenate(ious).mean())) if rows else None,
        "AP@50": _num(ap50(det_preds, det_gts)) if det_gts else None,
        "n_invalid": sum(1 for r in rows if not r["parsed"]["valid"]),
    }


def _text(rows: list[dict], tokens: dict) -> dict:
    """Corpus caption metrics of one cell from the task's tokens (tokens[id] = (candidate, [references]))."""
    cands = [tokens[id(r)][0] for r in rows]
    refs = [tokens[id(r)][1] for r in rows]
    out = {
        "BLEU-4": _num(bleu4(cands, refs, tokenize=False)),
        "ROUGE-L": _num(rouge_l(cands, refs, tokenize=False)),
        "CIDEr-D": _num(cider_d(cands, refs, tokenize=False)),
    }
    marks = [(r.get("scores") or {}).get("accuracy") for r in rows]
    marks = [
        m for m in marks if m is not None
    ]  # rows with a canonical answer (builds), judged correct or not
    if marks:
        out["accuracy"] = _num(np.mean(marks))
    raw_c = [r["parsed"]["answer"] if r["parsed"]["valid"] else "" for r in rows]
    raw_r = [[r["target"]["text"]] for r in rows]
    try:
        out["BERTScore"] = _num(bertscore(raw_c, raw_r)["f1"])
    except BertScoreUnavailable as err:
        out["BERTScore"] = None
        out["BERTScore_reason"] = f"not computed: {err}"
    return out


def _text_tokens(rows: list[dict]) -> dict:
    """Every row's (candidate tokens, [reference tokens]) from two tokenizer batches over the whole task."""
    cands = tokenize_captions([r["parsed"]["answer"] if r["parsed"]["valid"] else "" for r in rows])
    refs = tokenize_captions([r["target"]["text"] for r in rows])
    return {id(r): (c, [ref]) for r, c, ref in zip(rows, cands, refs, strict=True)}


def aggregate(records: list[dict], task) -> dict:
    """{'by_category_level': {cell: {n_samples, metrics...}}} for the task's type (+ 'tokenizer' for text)."""
    cells = _cells(records)
    task_type = cells["overall"][0]["doc"]["task_type"] if cells["overall"] else None
    out: dict = {}
    tokens: dict = {}
    if task_type in ("vqa", "summary"):
        out["tokenizer"] = active_tokenizer()
        tokens = _text_tokens(cells["overall"])
    table = {}
    for cell, rows in cells.items():
        entry: dict = {"n_samples": len(rows)}
        if rows:
            if task_type == "segmentation":
                entry.update(_segmentation(rows))
            elif task_type == "grounding":
                entry.update(_grounding(rows))
            else:
                entry.update(_text(rows, tokens))
        table[cell] = entry
    out["by_category_level"] = table
    return out
