"""The score hooks of RVTBench: per-sample J, F, J&F, IoU or ROUGE-L (+ VQA accuracy); invalid dense answers
score zero inside the means. `prepare_scoring` tokenizes a task's replies in one batch beforehand."""

from __future__ import annotations

import numpy as np

from harness.api import Parsed
from harness_metrics import decode_rle, j_and_f, jaccard, per_query_iou, rouge_l_per_sample
from harness_metrics.ptb_java import prefetch_tokens, tokenize_captions

from .boxes import raster
from .targets import video_size

ZERO_DENSE = {"segmentation": {"J": 0.0, "F": 0.0, "J&F": 0.0}, "grounding": {"IoU": 0.0}}


def _mask_stack(masks: list, height: int, width: int) -> np.ndarray:
    return np.stack([decode_rle(m)[0] if m is not None else np.zeros((height, width), bool) for m in masks])


def score(parsed: Parsed, target: dict, doc: dict) -> dict:
    """Per-sample J, F, J&F (segmentation), IoU (grounding) or ROUGE-L (text); dataset metrics in aggregate."""
    task_type = doc["task_type"]
    if task_type in ZERO_DENSE and not parsed.valid:
        return dict(ZERO_DENSE[task_type])  # the invalid answer: zero, inside the mean
    if task_type == "segmentation":
        h, w = video_size(doc, target)
        gt = _mask_stack(target["masks"], h, w)
        pred = _mask_stack(parsed.answer, h, w)
        stats = j_and_f(pred, gt)
        return {"J": float(jaccard(pred, gt).mean()), "F": stats["F_mean"], "J&F": stats["J&F"]}
    if task_type == "grounding":
        h, w = video_size(doc, target)
        gt = raster(target["boxes"], h, w)
        pred = raster(parsed.answer, h, w)
        return {"IoU": float(per_query_iou([pred], [gt])[0])}  # mean per-frame IoU (LISA's per image)
    cand, ref = tokenize_captions([parsed.answer if parsed.valid else "", target["text"]], memo=True)
    out = {"ROUGE-L": rouge_l_per_sample([cand], [[ref]], tokenize=False)[0]}
    if task_type == "vqa":
        correct = (parsed.extra or {}).get("correct") if target.get("canonical") is not None else None
        out["accuracy"] = None if correct is None else float(correct)
    return out


def prepare_scoring(records: list[dict]) -> None:
    """Every text reply and reference of the task through the tokenizer in one batch (one Java process per
    task, not one per reply), so that `score`'s per-sample ROUGE-L finds them tokenized already."""
    captions = []
    for rec in records:
        if (rec.get("doc") or {}).get("task_type") in ("vqa", "summary"):
            captions += [(rec.get("raw") or "").strip(), rec["target"]["text"]]  # the candidate `score` reads
    prefetch_tokens(captions)
