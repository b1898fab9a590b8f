"""The sample viewer: for chosen samples, the frames the model saw, the prompt, raw and parsed answers and
the target, with every model's answer to the same sample side by side.

Frames are decoded again from the samples file's `media` entries (path relative to the dataset root,
source frame indices actually used) through harness.frames.load_clip, one one-frame segment per logged
index, so the strip shows exactly those frames in order. Without the videos (no `--data`, or a missing
file) the strip is skipped with a note.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import numpy as np

from harness.data.media import Segment, VideoRef
from harness.frames import FrameSpec, load_clip
from harness.report.escaping import markdown_code, markdown_text
from harness.report.formatting import shorten
from harness.report.loading import all_tasks, task_config, task_result
from harness.report.sections import Cell, Figure, ReportSection, Table
from harness.report.stats import as_number

log = logging.getLogger(__name__)

MAX_STRIP_FRAMES = 12
STRIP_SIDE = 128
MAX_TEXT = 1500
RAW_CELL = 200  # characters of a raw answer (and of the scores) in the every-model table
ANSWER_CELL = 120  # characters of a parsed answer there


def _headline_score(run: dict, task: str, rec: dict) -> Optional[float]:
    head = (task_result(run, task) or {}).get("headline")
    return as_number((rec.get("scores") or {}).get(head)) if head else None


def choose_samples(run: dict, task: str, n: int) -> list[dict]:
    """Up to n samples of the task: errors, invalid and wrong answers first (file order), then the rest."""
    records = (run.get("_samples") or {}).get(task) or []

    def rank(rec: dict) -> int:
        if rec.get("error"):
            return 0
        if not (rec.get("parsed") or {}).get("valid", True):
            return 1
        score = _headline_score(run, task, rec)
        return 2 if score is not None and score < 1.0 else 3

    bad = [r for r in records if rank(r) < 3]
    good = [r for r in records if rank(r) == 3]
    k_bad = min(len(bad), max(n - min(len(good), n // 2), 0))
    return sorted(bad, key=rank)[:k_bad] + good[: n - k_bad]


def resolve_media(path: str, data_dir: Optional[Path], data_key: Optional[str]) -> Optional[Path]:
    """The media file under the dataset root (DIR/<data_key>/path, else DIR/path), or None."""
    if data_dir is None or not path:
        return None
    roots = ([data_dir / data_key] if data_key else []) + [data_dir]
    for root in roots:
        candidate = (root / path).resolve()
        if candidate.is_file() and root.resolve() in candidate.parents:
            return candidate
    return None


def frame_strip(video: Path, indices: Sequence[int]) -> tuple[bytes, int]:
    """A PNG of the given source frames side by side (at most MAX_STRIP_FRAMES, evenly chosen) and how
    many frames it shows. Raises harness.frames.MediaError for an undecodable video."""
    from matplotlib.image import imsave

    picked = list(indices)
    if len(picked) > MAX_STRIP_FRAMES:
        pos = np.linspace(0, len(picked) - 1, MAX_STRIP_FRAMES).round().astype(int)
        picked = [picked[i] for i in pos]
    ref = VideoRef(path=str(video), segments=tuple(Segment(start=i, end=i + 1) for i in picked))
    clip = load_clip(ref, FrameSpec(strategy="all", max_side=STRIP_SIDE))
    frames = clip.frames
    gap = np.full((frames.shape[1], 3, 3), 255, dtype=np.uint8)
    parts = []
    for f in frames:
        parts.extend([f, gap])
    buf = io.BytesIO()
    imsave(buf, np.concatenate(parts[:-1], axis=1), format="png")
    return buf.getvalue(), len(picked)


def _clip(text: Any) -> str:
    s = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    return s if len(s) <= MAX_TEXT else s[:MAX_TEXT] + f" … ({len(s) - MAX_TEXT} more characters)"


def _fence(label: str, text: Any) -> str:
    return f"**{markdown_text(label)}**\n\n```\n{markdown_code(_clip(text))}\n```"


def sample_section(
    runs: Sequence[dict], owner: dict, task: str, rec: dict, data_dir: Optional[Path]
) -> ReportSection:
    """One sample: frame strips, prompt, raw, parsed, target; a table of every run's answer to it."""
    doc_id = str(rec.get("doc_id"))
    data_key = (task_config(owner, task).get("dataset") or {}).get("data_key")
    figures, notes = [], []
    for k, media in enumerate(rec.get("media") or []):
        indices = media.get("indices") or []
        label = media.get("label") or media.get("path")
        video = resolve_media(media.get("path", ""), data_dir, data_key)
        if video is None:
            why = "no --data given" if data_dir is None else f"{media.get('path')} not found under {data_dir}"
            notes.append(
                f"Frames of {markdown_text(label)} (indices {indices}) not shown: {markdown_text(why)}."
            )
            continue
        try:
            png, shown = frame_strip(video, indices)
        except Exception as exc:  # a broken video must not stop the report; the note names it
            notes.append(
                f"Frames of {markdown_text(label)} not shown: {type(exc).__name__}: {markdown_text(exc)}"
            )
            continue
        safe = "".join(c if c.isalnum() else "_" for c in f"{task}_{doc_id}_{k}")
        caption = f"{label}: source frames {indices}" + (
            f" (showing {shown})" if shown < len(indices) else ""
        )
        figures.append(Figure(f"sample_{safe}.png", caption, png))
    if rec.get("error"):
        error = rec["error"]
        notes.append(
            f"Sample error: {markdown_text(error.get('kind'))}: {markdown_text(error.get('message'))}"
        )
    parsed = rec.get("parsed") or {}
    text = [
        *notes,
        _fence("prompt", rec.get("prompt", "")),
        _fence(f"raw answer ({owner['_label']})", rec.get("raw")),
        _fence(
            "parsed",
            {"answer": parsed.get("answer"), "valid": parsed.get("valid"), "note": parsed.get("note")},
        ),
        _fence("target", rec.get("target")),
    ]
    table = Table(f"{task} / {doc_id}: every model's answer", ["raw", "parsed", "valid", "scores"])
    for r in runs:
        other = next(
            (x for x in (r.get("_samples") or {}).get(task) or [] if str(x.get("doc_id")) == doc_id), None
        )
        if other is None:
            continue
        p = other.get("parsed") or {}
        table.add_row(
            r["_label"],
            [
                Cell(shorten(_clip(other.get("raw") or ""), RAW_CELL), fmt="text"),
                Cell(shorten(_clip(p.get("answer")), ANSWER_CELL), fmt="text"),
                Cell(str(p.get("valid")), fmt="text"),
                Cell(shorten(_clip(other.get("scores")), RAW_CELL), fmt="text"),
            ],
        )
    return ReportSection(
        f"{task} / {doc_id}", "\n\n".join(text), [table], figures, level=3, key=f"sample-{task}-{doc_id}"
    )


def viewer_sections(runs: Sequence[dict], n: int, data_dir: Optional[Path]) -> list[ReportSection]:
    """The sample viewer: up to n samples per task, taken from the first run that logged the task."""
    if n <= 0:
        return []
    out: list[ReportSection] = []
    for task in all_tasks(runs):
        owner = next((r for r in runs if (r.get("_samples") or {}).get(task)), None)
        if owner is None:
            continue
        out.extend(sample_section(runs, owner, task, rec, data_dir) for rec in choose_samples(owner, task, n))
    if not out:
        return [
            ReportSection(
                "Sample viewer",
                "No samples files next to the results files (run with `--log_samples` to get them).",
                level=2,
                key="samples",
            )
        ]
    head = ReportSection(
        "Sample viewer",
        f"Up to {n} samples per task (wrong, invalid and failed ones first): "
        "the frames the model saw, the prompt, its raw and parsed answer and the target.",
        level=2,
        key="samples",
    )
    return [head, *out]
