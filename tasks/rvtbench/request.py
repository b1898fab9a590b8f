"""The request-side hooks of RVTBench: the target a sample is scored against, the oracle's answer and the
`random` baseline's answer space (never the evaluated split's targets)."""

from __future__ import annotations


def target(doc: dict) -> dict:
    """The ground truth: {frames, masks} / {frames, boxes} / {text}."""
    return doc["answer"]


def oracle_answer(doc: dict, target: dict):
    """The target in the model output contract (structured masks/boxes, or text)."""
    if doc["task_type"] == "segmentation":
        return {"text": "", "structured": {"masks": target["masks"]}}
    if doc["task_type"] == "grounding":
        return {"text": "", "structured": {"boxes": target["boxes"]}}
    return target["text"]


def answer_space(docs: list[dict]) -> dict[str, list[str]] | list[str]:
    """The `random` baseline's replies: per VQA kind the build's answer vocabulary; summaries from it too.

    The vocabulary is the DT attribute domain and the event phrases (manifest "answer_vocabulary"), never
    the evaluated answers; segmentation and grounding draw an empty reply (no masks, no boxes).
    """
    vocab: dict[str, list[str]] = {}
    for d in docs:
        for kind, values in (d.get("answer_vocabulary") or {}).items():
            vocab.setdefault(kind, sorted(set(values)))
    if not docs or docs[0]["task_type"] in ("segmentation", "grounding"):
        return [""]
    if docs[0]["task_type"] == "summary":
        values = vocab.get("attribute") or ["an object"]
        events = vocab.get("event") or ["stays in place"]
        return [f"The video shows a {v} object, which {e}." for v in values for e in events]
    return vocab or {"": ["yes", "no"]}
