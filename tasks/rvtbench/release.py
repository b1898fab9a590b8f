"""Reading RVTBench data: the builder's output and the public release (one module, schema below).

Builder output (confirmed: we write it): `ROOT/manifest.json` with "builder": "rvtbench" and `ROOT/test.jsonl`,
one sample per line (docs/builders/rvtbench.md).

Public release (HF dataset `yiqingshen/rvtbench`, files under `rvtbench/`). CONFIRMED from the paper and public
listings only: the files sit under `rvtbench/` in the dataset repository, the format is JSON, and each sample is
the paper's tuple (video, task type, ground truth, DT, query, categories, level). ASSUMED (not verified, adapt
`FIELD_ALIASES` / `_target` here if the real files differ): `ROOT/rvtbench/**/*.json` each hold a list of
records (or {"data": [...]}) with
  video: path relative to ROOT (or to ROOT/rvtbench)      aliases: video_path, video_id
  task_type: segmentation | grounding | vqa | summary      aliases: type, task
  query: str                                               aliases: question, instruction
  categories: list or "a+b" string                         aliases: category, reasoning_category
  level: 1..4 or "L1".."L4"                                aliases: difficulty
  answer: masks {frame: COCO RLE} / boxes {frame: [[x, y, w, h], ...]} / text   aliases: ground_truth, gt
The fixture `tasks/rvtbench/fixtures/release/` mirrors this assumed layout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.api import DataError, DroppedRow, read_jsonl_rows

TASK_TYPES = ("segmentation", "grounding", "vqa", "summary")
CATEGORIES = ("semantic", "spatial", "temporal")
FIELD_ALIASES = {
    "video": ("video", "video_path", "video_id"),
    "task_type": ("task_type", "type", "task"),
    "query": ("query", "question", "instruction"),
    "categories": ("categories", "category", "reasoning_category"),
    "level": ("level", "difficulty"),
    "answer": ("answer", "ground_truth", "gt"),
}


def load_samples(root: Path, split: str, options: dict) -> list[dict]:
    """Rows of one task type (options["task_type"]) from a builder folder or a release copy."""
    task_type = options.get("task_type")
    if root is None:
        raise ValueError("rvtbench: no dataset folder; pass --data DIR (a build or a copy of the release)")
    manifest = root / "manifest.json"
    if manifest.exists() and json.loads(manifest.read_text()).get("builder") == "rvtbench":
        path = root / f"{split}.jsonl"
        if not path.exists():
            raise ValueError(
                f"rvtbench: {path} is missing; rebuild with `python -m harness build rvtbench ...`"
            )
        rows = [_checked_build_row(r, path, k) for k, r in enumerate(read_jsonl_rows(path, "rvtbench"))]
    else:
        rows = load_release(root)
    return [r for r in rows if isinstance(r, DroppedRow) or task_type is None or r["task_type"] == task_type]


def _checked_build_row(row: Any, path: Path, k: int) -> Any:
    """A builder row as it is, or a DroppedRow (counted in results) when it cannot be a sample."""
    if isinstance(row, DroppedRow):
        return row
    if not isinstance(row, dict):
        return DroppedRow("not_a_mapping", f"rvtbench: {path} row {k} is {type(row).__name__}, not an object")
    missing = [f for f in ("id", "video", "task_type", "answer") if f not in row]
    if missing:
        return DroppedRow("missing_field", f"rvtbench: {path} row {k} has no {', '.join(missing)}")
    if row["task_type"] not in TASK_TYPES:
        return DroppedRow("bad_value", f"rvtbench: {path} row {k}: task type {row['task_type']!r}")
    return row


def _field(rec: dict, name: str, where: str) -> Any:
    for key in FIELD_ALIASES[name]:
        if key in rec:
            return rec[key]
    raise ValueError(f"{where}: no '{name}' field (looked for {', '.join(FIELD_ALIASES[name])})")


def _categories(value: Any, where: str) -> list[str]:
    items = value if isinstance(value, list) else str(value).replace(",", "+").split("+")
    cats = sorted({str(c).strip().lower() for c in items if str(c).strip()})
    if not cats or any(c not in CATEGORIES for c in cats):
        raise ValueError(f"{where}: categories {value!r}; expected a subset of {', '.join(CATEGORIES)}")
    return cats


def _level(value: Any, where: str) -> int:
    try:
        level = int(str(value).upper().lstrip("L"))
    except ValueError:
        raise ValueError(f"{where}: level {value!r}; expected 1-4 or L1-L4") from None
    if level not in (1, 2, 3, 4):
        raise ValueError(f"{where}: level {value!r}; expected 1-4 or L1-L4")
    return level


def _target(task_type: str, answer: Any, where: str) -> dict:
    if task_type in ("vqa", "summary"):
        text = answer.get("text") if isinstance(answer, dict) else answer
        if not isinstance(text, str):
            raise ValueError(f"{where}: {task_type} answer must be text")
        return {"text": text}
    key = "masks" if task_type == "segmentation" else "boxes"
    per_frame = answer.get(key, answer) if isinstance(answer, dict) else answer
    if isinstance(per_frame, dict):
        frames = sorted(int(k) for k in per_frame)
        values = [per_frame[str(t)] if str(t) in per_frame else per_frame[t] for t in frames]
    elif isinstance(per_frame, list) and isinstance(answer, dict) and "frames" in answer:
        frames, values = [int(t) for t in answer["frames"]], per_frame
    else:
        raise ValueError(f"{where}: {task_type} answer must map frame -> {key}")
    if key == "boxes":
        values = [[v] if v and not isinstance(v[0], list) else (v or []) for v in values]
    return {"frames": frames, key: values}


def load_release(root: Path) -> list[dict]:
    """Normalised rows from the (assumed) release layout; a malformed record raises naming file and index."""
    base = root / "rvtbench" if (root / "rvtbench").is_dir() else root
    files = sorted(base.rglob("*.json"))
    if not files:
        raise ValueError(
            f"rvtbench: no JSON files under {base}; expected a build (manifest.json) or the release"
        )
    rows = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise DataError(f"rvtbench: {path} is not valid JSON (line {err.lineno}: {err.msg})") from None
        records = data.get("data", []) if isinstance(data, dict) else data
        for k, rec in enumerate(records):
            where = f"{path.relative_to(root)}[{k}]"
            try:
                rows.append(_release_row(rec, root, base, path, k, where))
            except (ValueError, TypeError, KeyError, AttributeError) as err:  # one bad record is counted
                rows.append(DroppedRow("malformed_row", f"rvtbench: {where}: {err}"))
    return rows


def _release_row(rec: Any, root: Path, base: Path, path: Path, k: int, where: str) -> dict:
    """One normalised release record; ValueError (naming `where`) when it cannot be a sample."""
    if not isinstance(rec, dict):
        raise ValueError(f"{where}: a record must be a JSON object, got {type(rec).__name__}")
    task_type = str(_field(rec, "task_type", where)).lower()
    task_type = {"seg": "segmentation", "qa": "vqa"}.get(task_type, task_type)
    if task_type not in TASK_TYPES:
        raise ValueError(f"{where}: task type {task_type!r}; expected one of {', '.join(TASK_TYPES)}")
    video = str(_field(rec, "video", where))
    if base != root and not (root / video).exists() and (base / video).exists():
        video = str(Path("rvtbench") / video)
    cats = _categories(_field(rec, "categories", where), where)
    return {
        "id": str(rec.get("id", f"{path.stem}_{k}")),
        "video": video,
        "task_type": task_type,
        "query": str(_field(rec, "query", where)),
        "categories": cats,
        "category": "+".join(cats),
        "level": _level(_field(rec, "level", where), where),
        "answer": _target(task_type, _field(rec, "answer", where), where),
        "width": rec.get("width"),
        "height": rec.get("height"),
    }
