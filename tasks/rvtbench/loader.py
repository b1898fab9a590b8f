"""Reading RVTBench data: the builder's output and the public release, as normalised and validated rows.

Where the data sits under `--data ROOT` is `release.py`; what a valid row is, `targets.py`. This module turns
records into rows.

Builder output (confirmed: we write it): `manifest.json` with "builder": "rvtbench" and `<split>.jsonl`, one
normalised sample per line (docs/builders/rvtbench.md).

Public release (Zenodo doi:10.5281/zenodo.19697191, HF dataset `yiqingshen/rvtbench`, folder `rvtbench/`).
CONFIRMED from the paper and public listings only: each sample is the paper's tuple (video, task type, ground
truth, DT, query, categories, level); 62 of the 200 videos are DAVIS sequences (folders of JPEG frames), 138
SA-V videos; the format is JSON. The schema itself could not be read from here, so the loader accepts every
layout such a release plausibly has, and refuses anything else by name:
  files     below the release's rvtbench/ folder (and inside its archives): *.json (a list of records,
            {"data"|"samples"|"annotations": [...]}, or a dict keyed by sample id), *.jsonl (one record per
            line), *.parquet (one record per row); a byte-order mark is accepted
  video     a path (a video file or a folder of frames, DAVIS) resolved as release.py says
  fields    `FIELD_ALIASES` (first alias present wins) and `OPTIONAL_FIELDS`; any other field is an error
            naming it (add it to `IGNORED_FIELDS` once the real schema is known)
  level     1-4 or "L1".."L4"; categories a list or "a+b" / "a,b"; task type also seg / qa / caption
  answer    segmentation: per frame a COCO RLE, a polygon list [[x1, y1, x2, y2, ...], ...] or a PNG mask path
            (located like a video; nonzero = object); grounding: per frame one box [x, y, w, h] or a list of
            them; vqa / summary: text (or {"text": ...}). Per-frame values come as {frame: value} or
            {"frames": [...], "masks" | "boxes": [...]}.
  size      width/height from the record, else probed from the video, else the first RLE's size
  frames    num_frames from the record, else probed from the video (frames must lie inside it)
  fps       from the record when given (frame folders have no rate of their own), else the core's default
A record that does not fit (a missing field, a bad value, a target that cannot be right, a duplicate id) is a
DroppedRow counted in the results with its reason (targets.py); an unexpected field is a schema mismatch and
stops the load (DataError naming it), as does a file that is not valid JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np
from pycocotools import mask as coco_mask

from harness.api import DataError, DroppedRow, read_json_file, read_jsonl_rows
from harness.frames import MediaError, probe_video
from harness_metrics import encode_rle

from . import targets
from .release import Layout, find_layout
from .targets import RowProblem

TASK_TYPES = targets.TASK_TYPES
TASK_TYPE_ALIASES = {"seg": "segmentation", "qa": "vqa", "caption": "summary", "ground": "grounding"}
FIELD_ALIASES = {
    "video": ("video", "video_path", "video_id"),
    "task_type": ("task_type", "type", "task"),
    "query": ("query", "question", "instruction"),
    "categories": ("categories", "category", "reasoning_category"),
    "level": ("level", "difficulty"),
    "answer": ("answer", "ground_truth", "gt"),
}
OPTIONAL_FIELDS = ("id", "width", "height", "fps", "num_frames")
# Fields a release record may carry that the evaluation does not use (the paper's tuple: the DT J, the
# reasoning tree); anything not here, in FIELD_ALIASES or in OPTIONAL_FIELDS is refused by name.
IGNORED_FIELDS = ("dt", "digital_twin", "reasoning_tree", "tree", "tokens", "source", "dataset")
_LIST_KEYS = ("data", "samples", "annotations")
BUILD_REQUIRED = ("id", "video", "task_type", "answer")


def load_samples(root: Path, split: str, options: dict) -> list[dict]:
    """Rows of one task type (options["task_type"]) from a build or a release under `--data ROOT`."""
    task_type = options.get("task_type")
    if root is None:
        raise DataError("rvtbench: no dataset folder; pass --data DIR (a build or a copy of the release)")
    layout = find_layout(Path(root))
    pairs = load_build(layout, split) if layout.kind == "build" else load_release(layout)
    # A dropped row counts in its own task when its task type is readable, else in every RVTBench task.
    return [r for kind, r in pairs if task_type is None or kind in (task_type, None)]


def _kind(rec: Any) -> Optional[str]:
    """The task type a (possibly malformed) record names, or None when it names none."""
    if not isinstance(rec, dict):
        return None
    raw = next((rec[k] for k in FIELD_ALIASES["task_type"] if isinstance(rec.get(k), str)), None)
    kind = TASK_TYPE_ALIASES.get(raw.strip().lower(), raw.strip().lower()) if raw else None
    return kind if kind in TASK_TYPES else None


def load_build(layout: Layout, split: str) -> list[tuple[Optional[str], Any]]:
    """(task type, row or DroppedRow) of a build's `<split>.jsonl`: every row validated, its video made
    relative to ROOT."""
    path = layout.path / f"{split}.jsonl"
    if not path.exists():
        raise DataError(f"rvtbench: {path} is missing; rebuild with `python -m harness build rvtbench ...`")
    info = read_json_file(layout.path / "manifest.json", "rvtbench build manifest (a JSON object)")
    vocab = info.get("answer_vocabulary") if isinstance(info, dict) else None  # the DT's answer domain, for `random` and the judge
    rows = []
    for k, raw in enumerate(read_jsonl_rows(path, "rvtbench")):
        row = _checked_build_row(raw, f"rvtbench: {path} row {k}", vocab if isinstance(vocab, dict) else {})
        if isinstance(row, dict):
            row["video"] = f"{layout.folder}/{row['video']}" if layout.folder else row["video"]
            if row["task_type"] in ("vqa", "summary") and vocab:
                row["answer_vocabulary"] = vocab
            if row["task_type"] == "vqa":
                row["answer_kind"] = row["answer"].get("kind", "")
        rows.append((_kind(raw), row))
    return rows


def _checked_build_row(row: Any, where: str, vocab: dict) -> Any:
    """A builder row normalised, or a DroppedRow (counted in results) when it cannot be a sample."""
    if isinstance(row, DroppedRow):
        return row
    if not isinstance(row, dict):
        return DroppedRow("not_a_mapping", f"{where} is {type(row).__name__}, not an object")
    where += f" (id {row.get('id')!r})"
    missing = [f for f in BUILD_REQUIRED if f not in row]
    if missing:
        return DroppedRow("missing_field", f"{where} has no {', '.join(missing)}")
    try:
        targets.check_finite(row)
        if not isinstance(row["id"], str) or not row["id"]:
            raise RowProblem("bad_value", f"id {row['id']!r}; expected a non-empty string")
        targets.video_path(row["video"])
        targets.task_type(row["task_type"])
        cats = targets.categories(row.get("categories", row.get("category")))
        out = {
            **row,
            "level": targets.level(row.get("level")),
            "categories": cats,
            "category": "+".join(cats),
        }
        for name, integer in (("fps", False), ("width", True), ("height", True)):
            targets.positive(row.get(name), name, integer)
        if row["task_type"] == "grounding" and not (row.get("width") and row.get("height")):
            raise RowProblem("bad_value", "a grounding row needs width and height")
        num_frames = targets.positive(row.get("num_frames"), "num_frames", True)
        targets.check_target(out, num_frames, vocab)
    except RowProblem as problem:
        return DroppedRow(problem.reason, f"{where}: {problem}")
    return out


def _records(path: Path) -> list[tuple[str, dict]]:
    """(where, record) pairs of one release file, whatever its container layout."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return [(f"{path}[{k}]", rec) for k, rec in enumerate(read_jsonl_rows(path, "rvtbench"))]
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise DataError(
                f"rvtbench: {path} is parquet; install pyarrow (pip install 'video-harness[parquet]')"
            ) from None
        return [(f"{path}[{k}]", rec) for k, rec in enumerate(pq.read_table(path).to_pylist())]
    data = read_json_file(path, "rvtbench annotation file (JSON)")  # regular, bounded, never a FIFO
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


def _field(rec: dict, name: str) -> Any:
    for key in FIELD_ALIASES[name]:
        if key in rec and rec[key] is not None:
            return rec[key]
    raise RowProblem("missing_field", f"no '{name}' field (looked for {', '.join(FIELD_ALIASES[name])})")


def _check_fields(rec: Any, where: str) -> None:
    if not isinstance(rec, dict):
        raise RowProblem("not_a_mapping", f"expected a record (a JSON object), got {type(rec).__name__}")
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
            "FIELD_ALIASES or IGNORED_FIELDS in tasks/rvtbench/loader.py"
        )


def _per_frame(answer: Any, key: str, task_type: str) -> tuple[list, list]:
    per_frame = answer.get(key, answer) if isinstance(answer, dict) else answer
    if isinstance(answer, dict) and "frames" in answer and isinstance(per_frame, list):
        frames = answer["frames"]
        if not isinstance(frames, list) or len(frames) != len(per_frame):
            raise RowProblem("bad_target", f"{task_type} answer: 'frames' and '{key}' differ in length")
        return list(frames), list(per_frame)
    if isinstance(per_frame, dict) and per_frame and not ("size" in per_frame and "counts" in per_frame):
        try:
            frames = sorted(int(k) for k in per_frame)
        except ValueError:
            raise RowProblem("bad_target", f"{task_type} answer keys must be frame numbers") from None
        return frames, [per_frame[str(t)] if str(t) in per_frame else per_frame[t] for t in frames]
    raise RowProblem(
        "bad_target", f"{task_type} answer must map frame -> {key} (or give 'frames' and '{key}')"
    )


def _mask_rle(value: Any, size: Optional[tuple[int, int]], layout: Layout, near: Path) -> dict:
    """One frame's mask as a COCO RLE with str counts: from RLE, a polygon list or a PNG mask file."""
    if value is None:
        raise RowProblem("bad_target", "the mask is null")
    if isinstance(value, dict) and "size" in value and "counts" in value:
        counts = value["counts"]
        try:
            h, w = (int(v) for v in value["size"])
            if isinstance(counts, list):
                counts = coco_mask.frPyObjects({"size": [h, w], "counts": counts}, h, w)["counts"]
        except (TypeError, ValueError, OverflowError) as err:
            raise RowProblem("bad_target", f"the mask is not a COCO RLE ({err})") from None
        text = counts.decode("ascii") if isinstance(counts, bytes) else str(counts)
        return {"size": [h, w], "counts": text}
    if isinstance(value, str) and value.lower().endswith(".png"):
        import cv2

        path = layout.locate(value, near)
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED) if path is not None and path.is_file() else None
        if img is None:
            raise RowProblem("bad_target", f"PNG mask '{value}' not found or unreadable")
        return encode_rle(img.any(axis=2) if img.ndim == 3 else img != 0)[0]
    if isinstance(value, list) and (not value or isinstance(value[0], (list, tuple))):
        if size is None:
            raise RowProblem(
                "bad_value", "a polygon mask needs the frame size: give width/height or a readable video"
            )
        try:
            polys = [[float(v) for v in poly] for poly in value if len(poly) >= 6]
        except (TypeError, ValueError):
            raise RowProblem("bad_target", "a polygon holds something that is not a number") from None
        if not polys:
            return encode_rle(np.zeros(size, bool))[0]
        rle = coco_mask.merge(coco_mask.frPyObjects(polys, size[0], size[1]))
        return {"size": [int(v) for v in rle["size"]], "counts": rle["counts"].decode("ascii")}
    raise RowProblem(
        "bad_target", f"a mask must be a COCO RLE, a polygon list or a PNG path, got {type(value).__name__}"
    )


def _boxes(values: list) -> list:
    """Per frame a list of boxes (one box [x, y, w, h] becomes a list of one; checked in targets.py)."""
    return [[v] if isinstance(v, list) and v and not isinstance(v[0], list) else (v or []) for v in values]


class _Probe:
    """(height, width, num_frames) of each video, probed once per load; None when unreadable."""

    def __init__(self):
        self.seen: dict[str, Optional[tuple[int, int, int]]] = {}

    def __call__(self, video: Optional[Path], fps: Optional[float]) -> Optional[tuple[int, int, int]]:
        if video is None:
            return None
        key = f"{video}|{fps}"
        if key not in self.seen:
            try:
                info = probe_video(video, fps)
                self.seen[key] = (info.height, info.width, info.num_frames)
            except MediaError:
                self.seen[key] = None  # the unreadable video is the sample's counted media error when decoded
        return self.seen[key]


def _row(rec: Any, where: str, layout: Layout, near: Path, probe: _Probe) -> dict:
    """One release record as a normalised row; RowProblem (a counted drop) when it cannot be a sample."""
    _check_fields(rec, where)
    targets.check_finite(rec)
    raw_type = str(_field(rec, "task_type")).strip().lower()
    kind = targets.task_type(TASK_TYPE_ALIASES.get(raw_type, raw_type))
    video = targets.video_path(_field(rec, "video"))
    fps = targets.positive(rec.get("fps"), "fps", integer=False)
    for name in ("width", "height", "num_frames"):
        targets.positive(rec.get(name), name, integer=True)
    cats = targets.categories(_field(rec, "categories"))
    row = {
        "id": str(rec["id"]) if rec.get("id") is not None else where,
        "video": layout.media_path(video, near),
        "task_type": kind,
        "query": str(_field(rec, "query")),
        "categories": cats,
        "category": "+".join(cats),
        "level": targets.level(_field(rec, "level")),
        "width": rec.get("width"),
        "height": rec.get("height"),
    }
    if fps:
        row["fps"] = fps
    answer = _field(rec, "answer")
    if kind in ("vqa", "summary"):
        text = answer.get("text") if isinstance(answer, dict) else answer
        row["answer"] = {"text": text}
        targets.check_target(row, None)
        return row
    known = row["width"] and row["height"] and rec.get("num_frames")
    info = None if known else probe(layout.locate(video, near), fps)
    if not (row["width"] and row["height"]) and info is not None:
        row["height"], row["width"] = info[0], info[1]
    num_frames = rec.get("num_frames") or (info[2] if info is not None else None)
    size = (row["height"], row["width"]) if row["width"] and row["height"] else None
    key = "masks" if kind == "segmentation" else "boxes"
    frames, values = _per_frame(answer, key, kind)
    if key == "masks":
        values = [_frame_mask(v, t, size, layout, near) for t, v in zip(frames, values, strict=True)]
        if size is None and values:
            row["height"], row["width"] = values[0]["size"]
    else:
        values = _boxes(values)
    row["answer"] = {"frames": frames, key: values}
    targets.check_target(row, num_frames)
    return row


def _frame_mask(value: Any, t: Any, size: Optional[tuple[int, int]], layout: Layout, near: Path) -> dict:
    try:
        return _mask_rle(value, size, layout, near)
    except RowProblem as problem:
        raise RowProblem(problem.reason, f"frame {t}: {problem}") from None


def load_release(layout: Layout) -> list[tuple[Optional[str], Any]]:
    """(task type, row or DroppedRow) of every release record; a record that does not fit is a DroppedRow
    naming its file and index."""
    rows: list = []
    seen: set[str] = set()
    probe = _Probe()
    for path in layout.record_files():
        for where, rec in _records(path):
            short = where.replace(str(layout.root) + "/", "")
            if isinstance(rec, DroppedRow):
                rows.append((None, rec))
                continue
            try:
                row = _row(rec, short, layout, path.parent, probe)
            except RowProblem as problem:
                row = DroppedRow(problem.reason, f"rvtbench: {short}: {problem}")
            except (ValueError, TypeError, KeyError, AttributeError) as err:  # one bad record is counted
                row = DroppedRow("malformed_row", f"rvtbench: {short}: {err}")
            else:
                if row["id"] in seen:
                    row = DroppedRow("duplicate_id", f"rvtbench: {short}: duplicate sample id {row['id']!r}")
                seen.add(str(row["id"]) if isinstance(row, dict) else "")
            rows.append((_kind(rec), row))
    return rows
