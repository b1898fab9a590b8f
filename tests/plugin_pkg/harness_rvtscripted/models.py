"""Scripted models for the RVTBench tests: shifted boxes, a JSON-answering LLM, a describing VLM."""

from __future__ import annotations

import json
import re

import numpy as np

from harness.api import Capabilities, ImagePart, Model, Response
from harness_metrics import decode_rle

TASK_TYPES = ("segmentation", "grounding", "vqa", "summary")


def _frames_in_prompt(text: str) -> list[int]:
    match = re.search(r"\(0-based frame numbers\): ([0-9, ]+)", text)
    if not match:
        raise ValueError(f"no frame list in the prompt: {text[:200]!r}")
    return [int(v) for v in match.group(1).replace(" ", "").strip(",").split(",")]


def _mask_boxes(rle: dict) -> list[list[float]]:
    mask = decode_rle(rle)[0]
    if not mask.any():
        return []
    ys, xs = np.nonzero(mask)
    return [
        [float(xs.min()), float(ys.min()), float(xs.max() - xs.min() + 1), float(ys.max() - ys.min() + 1)]
    ]


class ShiftedBoxesModel(Model):
    """Answers box prompts with the ground-truth boxes moved by (dx, dy) pixels, as JSON text.

    Boxes come from the oracle hint (grounding boxes, or the bounding box of each segmentation mask);
    even-numbered positions use bbox_xyxy, odd ones bbox_xywh. Text tasks get the oracle text.
    """

    name = "rvt_shifted_boxes"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=False, images=True)

    def __init__(self, dx: float = 3, dy: float = 2, **kw):
        super().__init__(dx=dx, dy=dy, **kw)
        self.dx, self.dy = float(dx), float(dy)

    def _boxes(self, hint: dict) -> list[list[list[float]]]:
        structured = hint["structured"]
        if "boxes" in structured:
            return structured["boxes"]
        return [_mask_boxes(m) for m in structured["masks"]]

    def generate(self, requests):
        """One JSON reply per request (text tasks: the oracle text)."""
        out = []
        for r in requests:
            hint = r.hints["oracle_answer"]
            if not isinstance(hint, dict):
                out.append(Response(text=hint))
                continue
            frames = _frames_in_prompt(r.prompt_text())
            items = []
            for k, (t, per) in enumerate(zip(frames, self._boxes(hint), strict=True)):
                for x, y, w, h in per:
                    x, y = x + self.dx, y + self.dy
                    if k % 2 == 0:
                        items.append({"frame": t, "bbox_xyxy": [x, y, x + w, y + h]})
                    else:
                        items.append({"frame": t, "bbox_xywh": [x, y, w, h]})
            out.append(
                Response(text="```json\n" + json.dumps({"coordinates": "pixel", "boxes": items}) + "\n```")
            )
        return out


class ScriptedLLM(Model):
    """Answers the builder's object-selection and query prompts with the JSON they ask for.

    mode="json": selection picks the first objects of the digest, task types in the order
    segmentation, grounding, vqa, summary; queries are "scripted query L<level> ...". mode="garbage":
    prose without JSON (the builder must fall back to its rules and templates and count it).
    """

    name = "rvt_json_llm"
    capabilities = Capabilities(video=False, multi_video=False, images=False)

    def __init__(self, mode: str = "json", **kw):
        super().__init__(mode=mode, **kw)
        self.mode = mode
        self.calls: list[tuple[str, str, str]] = []  # (doc id, prompt, reply)

    def _reply(self, prompt: str) -> str:
        if self.mode == "garbage":
            return "I would pick the red one, it looks nice."
        if "Choose up to" in prompt:
            n = int(re.search(r"Choose up to (\d+)", prompt).group(1))
            ids = list(dict.fromkeys(re.findall(r"#(\w+):", prompt)))[:n]
            return json.dumps([{"id": i, "task_type": TASK_TYPES[k % 4]} for k, i in enumerate(ids)])
        level = re.search(r"Difficulty level: (\d)", prompt).group(1)
        task_type = re.search(r"Task type: (\w+)", prompt).group(1)
        answer = f"scripted {task_type} answer L{level}" if task_type in ("vqa", "summary") else None
        return "Sure: " + json.dumps(
            {"query": f"scripted query L{level} for {task_type}", "answer": answer, "categories": ["spatial"]}
        )

    def generate(self, requests):
        """One scripted reply per request; every call is kept in `calls`."""
        out = []
        for r in requests:
            prompt = r.prompt_text()
            reply = self._reply(prompt)
            self.calls.append((r.doc_id, prompt, reply))
            out.append(Response(text=reply))
        return out


class ScriptedVLM(Model):
    """Describes what it is shown: 'a scripted object' (one image), or the number of key frames it got."""

    name = "rvt_scripted_vlm"
    capabilities = Capabilities(video=False, multi_video=False, images=True)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.seen: list[list[np.ndarray]] = []  # the images of every request

    def generate(self, requests):
        """One description per request, by what the prompt asks for."""
        out = []
        for r in requests:
            images = [p for m in r.messages for p in m.content if isinstance(p, ImagePart)]
            assert all(p.image.ndim == 3 and p.image.shape[2] == 3 for p in images)
            self.seen.append([p.image for p in images])
            text = r.prompt_text()
            if "highlighted object" in text:
                reply = "A scripted object."
            elif "environment" in text:
                reply = "A scripted scene."
            else:
                reply = f"A scripted video of {len(images)} key frames."
            out.append(Response(text=reply))
        return out
