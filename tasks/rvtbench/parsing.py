"""The parse hook of RVTBench: masks, boxes or text by task type; unusable dense answers are invalid.

Segmentation needs masks from the model (Response.structured {"masks": [RLE per frame]}), grounding boxes.
A reply with no usable masks or boxes (none at all, none on any frame, undecodable, the wrong size, or boxes
that break the format) is the task's invalid answer: counted invalid and scored J = F = J&F = 0 (IoU 0) inside
the means, as the paper's metrics score a failed query; never left out (a model returning nothing would
score higher than one that tries) and never masks faked from boxes (that is `rvtbench_seg_boxes`).
"""

from __future__ import annotations

from harness.api import Parsed, Response
from harness_metrics import decode_rle

from .boxes import BoxFormatError, parse_text_boxes, structured_boxes
from .targets import video_size
from .vqa_answers import judged_correct, rule_correct

NO_MASKS = (
    "no masks: the reply has no structured masks (a text-only model?); invalid, scored J = F = 0. Use a "
    "mask-producing model, or the explicit box-to-mask pipeline of the task rvtbench_seg_boxes"
)


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
