"""Reading RVTBench data: the builder's output and the public release. Every layout assumption lives here.

Builder output (confirmed: we write it): `ROOT/manifest.json` with "builder": "rvtbench" and `ROOT/<split>.jsonl`,
one normalised sample per line (docs/builders/rvtbench.md).

Public release (Zenodo doi:10.5281/zenodo.19697191, HF dataset `yiqingshen/rvtbench`). CONFIRMED from the paper
and public listings only: each sample is the paper's tuple (video, task type, ground truth, DT, query, categories,
level); 62 of the 200 videos are DAVIS sequences (folders of JPEG frames), 138 SA-V videos. The schema itself
could not be read from here, so the loader accepts every layout such a release plausibly has, and refuses
anything else by name:
  files     ROOT/rvtbench/** or ROOT/**: *.json (a list of records, {"data"|"samples"|"annotations": [...]},
            or a dict keyed by sample id), *.jsonl (one record per line), *.parquet (one record per row)
  video     a path relative to ROOT (or ROOT/rvtbench): a video file or a folder of frames (DAVIS)
  fields    `FIELD_ALIASES` (first alias present wins) and `OPTIONAL_FIELDS`; any other field is an error
            naming it (add it to `IGNORED_FIELDS` once the real schema is known)
  level     1-4 or "L1".."L4"; categories a list or "a+b" / "a,b"; task type also seg / qa / caption
  answer    segmentation: per frame a COCO RLE, a polygon list [[x1, y1, x2, y2, ...], ...] or a PNG mask path
            (relative to the record's file, ROOT or ROOT/rvtbench; nonzero = object); grounding: per frame one
            box [x, y, w, h] or a list of them; vqa / summary: text (or {"text": ...}). Per-frame values come
            as {frame: value} or {"frames": [...], "masks" | "boxes": [...]}.
  size      width/height from the record, else the first RLE's size, else probed from the video
  fps       from the record when given (frame folders have no rate of their own), else the core's default
A record that does not fit (a missing field, a bad value, a duplicate id) is a DroppedRow counted in the
results; an unexpected field is a schema mismatch and stops the load (DataError naming it), as does a file
that is not valid JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from pycocotools import mask as coco_mask

from harness.api import DataError, DroppedRow, read_jsonl_rows
from harness.frames import MediaError, probe_video
from metrics import encode_rle

TASK_TYPES = ("segmentation", "grounding", "vqa", "summary")
CATEGORIES = ("semantic", "spatial", "temporal")
TASK_TYPE_ALIASES = {"seg": "segmentation", "qa": "vqa", "caption": "summary", "ground": "grounding"}
FIELD_ALIASES = {
    "video": ("video", "video_path", "video_id"),
    "task_type": ("task_type", "type", "task"),
    "query": ("query", "question", "instruction"),
    "categories": ("categories", "category", "reasoning_category"),
    "level": ("level", "difficulty"),
    "answer": ("answer", "ground_truth", "gt"),
}
OPTIONAL_FIELDS = ("id", "width", "height", "fps")
# Fields a release record may carry that the evaluation does not use (the paper's tuple: the DT J, the
# reasoning tree); anything not here, in FIELD_ALIASES or in OPTIONAL_FIELDS is refused by name.
IGNORED_FIELDS = ("dt", "digital_twin", "reasoning_tree", "tree", "tokens", "source", "dataset", "num_frames")
_LIST_KEYS = ("data", "samples", "annotations")


def load_samples(root: Path, split: str, options: dict) -> list[dict]:
    """Rows of one task type (options["task_type"]) from a builder folder or a release copy."""
    task_type = options.get("task_type")
    if root is None:
        raise ValueError("rvtbench: no dataset folder; pass --data DIR (a build or a copy of the release)")
    manifest = root / "manifest.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    if info.get("builder") == "rvtbench":
        path = root / f"{split}.jsonl"
        if not path.exists():
            raise ValueError(
                f"rvtbench: {path} is missing; rebuild with `python -m harness build rvtbench ...`"
            )
        rows = [_checked_build_row(r, path, k) for k, r in enumerate(read_jsonl_rows(path, "rvtbench"))]
        vocab = info.get("answer_vocabulary")  # the DT's answer domain, for `random` and the judge
        for r in rows:
            if isinstance(r, DroppedRow) or not isinstance(r.get("answer"), dict):
                continue
            if r["task_type"] in ("vqa", "summary") and vocab:
                r["answer_vocabulary"] = vocab
            if r["task_type"] == "vqa":
                r["answer_kind"] = r["answer"].get("kind", "")
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


def _records(path: Path) -> list[tuple[str, dict]]:
    """(where, record) pairs of one release file, whatever its container layout."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return [(f"{path}[{k}]", rec) for k, rec in enumerate(read_jsonl_rows(path, "rvtbench"))]
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ValueError(
                f"rvtbench: {path} is parquet; install pyarrow (pip install 'video-harness[parquet]')"
            ) from None
        return [(f"{path}[{k}]", rec) for k, rec in enumerate(pq.read_table(path).to_pylist())]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise DataError(f"rvtbench: {path} is not valid JSON (line {err.lineno}: {err.msg})") from None
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if isinstance(data, list):
        return [(f"{path}[{k}]", rec) for k, rec in enumerate(data)]
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        return [(f"{path}[{key!r}]", {"id": str(key), **rec}) for key, rec in data.items()]
    raise DataError(
        f"rvtbench: {path}: expected a list of records, {{'data': [...]}} or a dict keyed by sample id"
    )


def _field(rec: dict, name: str, where: str) -> Any:
    for key in FIELD_ALIASES[name]:
        if key in rec and rec[key] is not None:
            return rec[key]
    raise ValueError(f"{where}: no '{name}' field (looked for {', '.join(FIELD_ALIASES[name])})")


def _check_fields(rec: Any, where: str) -> None:
    if not isinstance(rec, dict):
        raise ValueError(f"{where}: expected a record (a JSON object), got {type(rec).__name__}")
    known = (
        {a for aliases in FIELD_ALIASES.values() for a in aliases}
        | set(OPTIONAL_FIELDS)
        | set(IGNORED_FIELDS)
    )
    unexpected = sorted(k for k in rec if k not in known)
    if unexpected:  # a schema mismatch (every record would be lost), not one bad record: stop, naming it
        raise DataError(
            f"{where}: unexpected field '{unexpected[0]}'"
            + (f" (and {', '.join(unexpected[1:])})" if unexpected[1:] else "")
            + f"; the loader knows {', '.join(sorted(known))}. If the release has this field, add it to "
            "FIELD_ALIASES or IGNORED_FIELDS in tasks/rvtbench/release.py"
        )


def _categories(value: Any, where: str) -> list[str]:
    items = list(value) if isinstance(value, (list, tuple)) else str(value).replace(",", "+").split("+")
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


def _per_frame(answer: Any, key: str, task_type: str, where: str) -> tuple[list[int], list]:
    per_frame = answer.get(key, answer) if isinstance(answer, dict) else answer
    if isinstance(answer, dict) and "frames" in answer and isinstance(per_frame, list):
        frames = [int(t) for t in answer["frames"]]
        if len(frames) != len(per_frame):
            raise ValueError(f"{where}: {len(frames)} frames but {len(per_frame)} {key}")
        return frames, list(per_frame)
    if isinstance(per_frame, dict) and per_frame and not ("size" in per_frame and "counts" in per_frame):
        try:
            frames = sorted(int(k) for k in per_frame)
        except ValueError:
            raise ValueError(f"{where}: {task_type} answer keys must be frame numbers") from None
        return frames, [per_frame[str(t)] if str(t) in per_frame else per_frame[t] for t in frames]
    raise ValueError(f"{where}: {task_type} answer must map frame -> {key} (or give 'frames' and '{key}')")


def _mask_rle(value: Any, size: tuple[int, int] | None, dirs: list[Path], where: str) -> dict:
    """One frame's mask as a COCO RLE with str counts: from RLE, a polygon list or a PNG mask file."""
    if isinstance(value, dict) and "size" in value and "counts" in value:
        counts = value["counts"]
        if isinstance(counts, list):
            h, w = (int(v) for v in value["size"])
            value = coco_mask.frPyObjects({"size": [h, w], "counts": counts}, h, w)
            counts = value["counts"]
        text = counts.decode("ascii") if isinstance(counts, bytes) else str(counts)
        return {"size": [int(v) for v in value["size"]], "counts": text}
    if isinstance(value, str) and value.lower().endswith(".png"):
        import cv2

        path = next((d / value for d in dirs if (d / value).is_file()), None)
        if path is None:
            raise ValueError(f"{where}: PNG mask '{value}' not found (looked in {', '.join(map(str, dirs))})")
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise ValueError(f"{where}: PNG mask {path} cannot be read")
        mask = img.any(axis=2) if img.ndim == 3 else img != 0
        return encode_rle(mask)[0]
    if isinstance(value, list) and (not value or isinstance(value[0], (list, tuple))):
        if size is None:
            raise ValueError(
                f"{where}: a polygon mask needs the frame size: give width/height or a readable video"
            )
        polys = [[float(v) for v in poly] for poly in value if len(poly) >= 6]
        if not polys:
            return encode_rle(np.zeros(size, bool))[0]
        rle = coco_mask.merge(coco_mask.frPyObjects(polys, size[0], size[1]))
        return {"size": [int(v) for v in rle["size"]], "counts": rle["counts"].decode("ascii")}
    raise ValueError(
        f"{where}: mask must be a COCO RLE, a polygon list or a PNG path, got {type(value).__name__}"
    )


def _boxes(values: list, where: str) -> list[list[list[float]]]:
    out = []
    for t, v in enumerate(values):
        per = [v] if v and not isinstance(v[0], (list, tuple)) else list(v or [])
        for b in per:
            if len(b) != 4 or any(not isinstance(x, (int, float)) for x in b) or b[2] < 0 or b[3] < 0:
                raise ValueError(f"{where}: frame {t}: box {b!r}; expected [x, y, w, h] with w, h >= 0")
        out.append([[float(x) for x in b] for b in per])
    return out


def _size_of(rec: dict, answer: Any, video: Path, fps: float | None, where: str) -> tuple[int, int] | None:
    if rec.get("height") and rec.get("width"):
        return int(rec["height"]), int(rec["width"])
    values = answer.get("masks", answer) if isinstance(answer, dict) else None
    first = next(iter(values.values()), None) if isinstance(values, dict) else None
    if isinstance(first, dict) and "size" in first:
        return tuple(int(v) for v in first["size"])
    try:
        info = probe_video(video, fps)
    except MediaError:
        return None  # the unreadable video is the sample's counted media error when it is decoded
    return info.height, info.width


def _row(rec: dict, where: str, root: Path, base: Path, file_dir: Path) -> dict:
    _check_fields(rec, where)
    raw_type = str(_field(rec, "task_type", where)).strip().lower()
    task_type = TASK_TYPE_ALIASES.get(raw_type, raw_type)
    if task_type not in TASK_TYPES:
        raise ValueError(f"{where}: task type {raw_type!r}; expected one of {', '.join(TASK_TYPES)}")
    video = str(_field(rec, "video", where))
    if base != root and not (root / video).exists() and (base / video).exists():
        video = str(Path(base.relative_to(root)) / video)
    fps = float(rec["fps"]) if rec.get("fps") else None
    answer = _field(rec, "answer", where)
    cats = _categories(_field(rec, "categories", where), where)
    row = {
        "id": str(rec.get("id") or where),
        "video": video,
        "task_type": task_type,
        "query": str(_field(rec, "query", where)),
        "categories": cats,
        "category": "+".join(cats),
        "level": _level(_field(rec, "level", where), where),
        "width": None,
        "height": None,
    }
    if fps:
        row["fps"] = fps
    if task_type in ("vqa", "summary"):
        text = answer.get("text") if isinstance(answer, dict) else answer
        if not isinstance(text, str):
            raise ValueError(f"{where}: {task_type} answer must be text")
        row["answer"] = {"text": text}
        row["width"], row["height"] = rec.get("width"), rec.get("height")
        return row
    size = _size_of(rec, answer, root / video, fps, where)
    row["height"], row["width"] = size if size else (None, None)
    key = "masks" if task_type == "segmentation" else "boxes"
    frames, values = _per_frame(answer, key, task_type, where)
    if key == "masks":
        dirs = [file_dir, base, root]
        values = [_mask_rle(v, size, dirs, f"{where} frame {t}") for t, v in zip(frames, values, strict=True)]
    else:
        values = _boxes(values, where)
    row["answer"] = {"frames": frames, key: values}
    return row


def load_release(root: Path) -> list[dict]:
    """Normalised rows from a release copy; a record that does not fit raises naming its file and index."""
    base = root / "rvtbench" if (root / "rvtbench").is_dir() else root
    files = sorted(
        p for p in base.rglob("*") if p.suffix.lower() in (".json", ".jsonl", ".parquet") and p.is_file()
    )
    if not files:
        raise ValueError(
            f"rvtbench: no .json/.jsonl/.parquet files under {base}; expected a build (manifest.json) or the release"
        )
    rows: list = []
    seen: set[str] = set()
    for path in files:
        for where, rec in _records(path):
            short = where.replace(str(root) + "/", "")
            if isinstance(rec, DroppedRow):
                rows.append(rec)
                continue
            try:
                row = _row(rec, short, root, base, path.parent)
            except (ValueError, TypeError, KeyError, AttributeError) as err:  # one bad record is counted
                rows.append(DroppedRow("malformed_row", f"rvtbench: {err}"))
                continue
            if row["id"] in seen:
                rows.append(
                    DroppedRow("duplicate_id", f"rvtbench: {short}: duplicate sample id {row['id']!r}")
                )
                continue
            seen.add(row["id"])
            rows.append(row)
    return rows
