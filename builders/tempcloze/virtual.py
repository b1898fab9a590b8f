"""The per-item `clips.json`: every clip of an item as frame segments over its source video.

With `--virtual` this file is the dataset (no clip is encoded); the harness plays each clip through
`harness.api.VideoRef` / `Segment` without re-encoding. In file mode it is written too, as provenance.
See docs/builders/tempcloze.md for the exact schema.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Union

from harness.api import Segment, VideoRef, read_json_file, write_atomic

from .intervals import ClipPlan, ItemPlan
from .layout import ALL_CLIPS

CLIPS_FORMAT = "tempcloze-clips"
CLIPS_VERSION = 1


def plan_segments(plan: ClipPlan) -> list[dict[str, Any]]:
    """A clip plan as a list of `Segment` field dicts (frame units)."""
    return [
        {"start": p.start, "end": p.end, "unit": "frame", "reverse": p.reverse, "repeat": p.repeat}
        for p in plan
    ]


def item_document(
    stem: str,
    source: str,
    fps: float,
    plan: ItemPlan,
    mode: str,
    source_identity: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON document of one item: source, frame count, fps, gap and every clip's segments."""
    a, b = plan.gap
    doc: dict[str, Any] = {
        "format": CLIPS_FORMAT,
        "version": CLIPS_VERSION,
        "stem": stem,
        "mode": mode,
        "source": source,
        "source_identity": source_identity,
        "num_frames": plan.num_frames,
        "fps": fps,
        "duration": plan.num_frames / fps,
        "gap": {"start": a, "end": b, "unit": "frame", "start_s": a / fps, "end_s": b / fps},
        "attempts": plan.attempts,
        "clips": {name: plan_segments(plan.clips[name]) for name in ALL_CLIPS},
    }
    if extra:
        doc.update(extra)
    return doc


def source_reference(source: Path, dataset_root: Path) -> str:
    """How clips.json names its source: POSIX path relative to the dataset root when possible, else absolute."""
    try:
        return Path(os.path.relpath(source.resolve(), dataset_root.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return str(source.resolve())


def write_item_document(path: Path, doc: dict[str, Any]) -> None:
    """Write clips.json atomically (temporary name, then rename)."""
    write_atomic(path, json.dumps(doc, indent=1, sort_keys=True) + "\n")


def load_item_document(path: Union[str, os.PathLike]) -> dict[str, Any]:
    """Read and check one clips.json; errors name the file and the missing field."""
    p = Path(path)
    doc = read_json_file(p, "TempCloze clips.json", error=ValueError)  # regular, bounded, never a FIFO
    if not isinstance(doc, dict) or doc.get("format") != CLIPS_FORMAT:
        raise ValueError(f"{p}: 'format' must be '{CLIPS_FORMAT}'; is this a TempCloze clips.json?")
    for key in ("source", "clips", "num_frames", "fps"):
        if key not in doc:
            raise ValueError(
                f"{p}: field '{key}' is missing; rebuild the item with `harness build tempcloze`"
            )
    return doc


def virtual_refs(
    item_json: Union[dict[str, Any], str, os.PathLike], dataset_root: Union[str, os.PathLike]
) -> dict[str, VideoRef]:
    """Every clip of an item as a VideoRef over its source: {"before": ..., "GT": ..., "S/Rand1": ...}.

    `item_json` is a clips.json document or its path; a relative `source` is resolved against
    `dataset_root` (the folder holding `choices/`).
    """
    doc = item_json if isinstance(item_json, dict) else load_item_document(item_json)
    source = Path(doc["source"])
    if not source.is_absolute():
        source = Path(dataset_root) / source
    refs = {}
    for name, segments in doc["clips"].items():
        try:
            segs = tuple(Segment(**s) for s in segments)
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"clips.json of '{doc.get('stem')}': clip '{name}' has a bad segment ({err})"
            ) from err
        refs[name] = VideoRef(path=str(source), segments=segs, label=name)
    return refs
