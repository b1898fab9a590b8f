"""RVTBench task hooks: loader, prompts' frame list, parsing, per-sample scores, oracle answers.

Segmentation needs masks from the model (Response.structured {"masks": [RLE per frame]}), grounding boxes.
A reply with no usable masks or boxes (none at all, none on any frame, undecodable, the wrong size, or boxes
that break the format) is the task's invalid answer: counted invalid and scored J = F = J&F = 0 (IoU 0) inside
the means, as the paper's metrics score a failed query; never left out (a model returning nothing would
score higher than one that tries) and never masks faked from boxes (that is `rvtbench_seg_boxes`).
"""

from __future__ import annotations

import numpy as np

from harness.api import Parsed, Response
from metrics import decode_rle, j_and_f, jaccard, per_query_iou, rouge_l_per_sample
from metrics.ptb_java import prefetch_tokens, tokenize_captions

from .boxes import BoxFormatError, parse_text_boxes, structured_boxes
from .release import load_samples
from .vqa_answers import judged_correct, rule_correct

NO_MASKS = (
    "no masks: the reply has no structured masks (a text-only model?); invalid, scored J = F = 0. Use a "
    "mask-producing model, or the explicit box-to-mask pipeline of the task rvtbench_seg_boxes"
)
ZERO_DENSE = {"segmentation": {"J": 0.0, "F": 0.0, "J&F": 0.0}, "grounding": {"IoU": 0.0}}


def load(root, split, options):
    """Loader hook: rows of options['task_type'] from a build or the release."""
    return load_samples(root, split, options)


def video_size(doc: dict, target: dict) -> tuple[int, int]:
    """(height, width) of a sample's video: the row's own, else its first target mask's RLE size."""
    if doc.get("height") and doc.get("width"):
        return int(doc["height"]), int(doc["width"])
    rles = target.get("masks") or []
    if rles:
        return tuple(int(v) for v in rles[0]["size"])
    raise ValueError(f"doc {doc.get('id')}: no width/height given")


def raster(boxes: list[list[list[float]]], height: int, width: int) -> np.ndarray:
    """(T, H, W) bool: the union of each frame's boxes, pixel-rounded."""
    out = np.zeros((len(boxes), height, width), dtype=bool)
    for t, per in enumerate(boxes):
        for x, y, w, h in per:  # clipped to the frame first, so a huge (finite) number cannot overflow
            x0, x1 = (int(round(min(max(v, 0.0), width))) for v in (x, x + w))
            y0, y1 = (int(round(min(max(v, 0.0), height))) for v in (y, y + h))
            out[t, y0:y1, x0:x1] = True
    return out


def _parse_masks(response: Response, doc: dict) -> Parsed:
    """Structured masks, one RLE (or null) per evaluation frame; none usable is an invalid answer."""
    target = doc["answer"]
    structured = response.structured if isinstance(response.structured, dict) else None
    masks = structured.get("masks") if structured is not None else None
    if masks is None:
        return Parsed(answer=None, valid=False, note=NO_MASKS)
    if isinstance(masks, dict):
        masks = [masks.get(str(t)) for t in target["frames"]]
    if not isinstance(masks, list) or len(masks) != len(target["frames"]):
        return Parsed(answer=None, valid=False, note="structured masks must give one RLE per frame")
    given = [m for m in masks if m is not None]
    try:
        decoded = decode_rle(given) if given else None
    except (ValueError, TypeError, OverflowError) as err:
        return Parsed(answer=None, valid=False, note=f"bad RLE: {err}")
    size = video_size(doc, target)
    if decoded is not None and tuple(decoded.shape[1:]) != size:
        return Parsed(
            answer=None,
            valid=False,
            note=f"masks are {decoded.shape[2]}x{decoded.shape[1]}, the video is {size[1]}x{size[0]}",
        )
    if decoded is None or not decoded.any():
        return Parsed(answer=None, valid=False, note="no masks: every frame's mask is empty or null")
    return Parsed(answer=masks)


def _parse_boxes(response: Response, doc: dict) -> Parsed:
    """Boxes per evaluation frame (structured, or the prompt's JSON); none on any frame is an invalid answer."""
    target = doc["answer"]
    h, w = video_size(doc, target)
    empty = [[] for _ in target["frames"]]
    try:
        if response.structured is not None:
            boxes = structured_boxes(response.structured, target["frames"])
        else:
            boxes = parse_text_boxes(response.text or "", target["frames"], w, h)
    except BoxFormatError as err:
        return Parsed(answer=empty, valid=False, note=f"rejected boxes: {err}")
    if not any(boxes):
        return Parsed(answer=empty, valid=False, note="no boxes in any frame")
    return Parsed(answer=boxes)


def parse(response: Response, doc: dict, judge=None) -> Parsed:
    """Masks, boxes or text by task type; unusable dense answers are invalid and score zero.

    VQA replies are also judged against the canonical answer (rule judge, or `--judge`): extra["correct"];
    a judge that gives no verdict counts the reply wrong (extra["judge_unclear"])."""
    target = doc["answer"]
    task_type = doc["task_type"]
    if task_type == "segmentation":
        return _parse_masks(response, doc)
    if task_type == "grounding":
        return _parse_boxes(response, doc)
    text = (response.text or "").strip()
    parsed = Parsed(answer=text, valid=bool(text), note=None if text else "empty reply")
    canonical = target.get("canonical") if task_type == "vqa" else None
    if canonical is not None:
        if not text:
            correct = False
        elif judge is not None:
            correct = judged_correct(judge, doc, text)
            if correct is None:  # a judge failing never takes a reply out of the accuracy
                parsed.extra["judge_unclear"] = True
                parsed.note = "the judge answered neither yes nor no: counted wrong"
                correct = False
        else:
            vocab = doc.get("answer_vocabulary") or {}
            kind = target.get("kind", "")
            correct = rule_correct(text, canonical, kind, vocab.get(kind, []), vocab.get("event", []))
        parsed.extra["correct"] = correct
    return parsed


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


def oracle_answer(doc: dict, target: dict):
    """The target in the model output contract (structured masks/boxes, or text)."""
    if doc["task_type"] == "segmentation":
        return {"text": "", "structured": {"masks": target["masks"]}}
    if doc["task_type"] == "grounding":
        return {"text": "", "structured": {"boxes": target["boxes"]}}
    return target["text"]


def target(doc: dict) -> dict:
    """The ground truth: {frames, masks} / {frames, boxes} / {text}."""
    return doc["answer"]
