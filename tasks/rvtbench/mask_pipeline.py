"""The explicit mask pipeline of `rvtbench_seg_boxes`: a model's boxes -> a registered box-to-mask model -> masks.

RVTBench segmentation needs masks. A text-only model's replies are invalid (J = F = 0) on `rvtbench_seg`; on
`rvtbench_seg_boxes` it is asked for per-frame boxes (the grounding answer format) and a registered
box-to-mask model (`rvtbench.box_to_mask.NAME`, a builder part, or "package.module:Factory") turns them into
masks on the decoded evaluation frames. Nothing happens silently: the pipeline is chosen by the dataset option
`box_to_mask` (overridable by HARNESS_RVTBENCH_BOX_TO_MASK), its checkpoint by the option `box_to_mask_model`
or HARNESS_RVTBENCH_BOX_TO_MASK_MODEL (device: HARNESS_RVTBENCH_BOX_TO_MASK_DEVICE), every doc carries the
pipeline, every parsed answer says which source made its masks, and the tables count masks per source.
A model that returns masks itself (structured {"masks": ...}) is scored on its own masks (source "model").

Two bounded process caches, each a `functools.lru_cache` of a pure key (no module-level dict): the loaded
box-to-mask components (the last `_COMPONENTS_MAX` pipelines: a checkpoint is loaded once, not per answer,
and a grid worker trying several pipelines holds at most that many) and the masks of the last `_MEMO_LIMIT`
(doc, boxes) conversions (an answer parsed again, e.g. rescored, is not run through the model twice). The
parse hook's signature carries no run object, so the process is what they can live in; both are answers of
their key alone (the pipeline's config; the video, frames and boxes), never of the run.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from harness.api import (
    DataError,
    DroppedRow,
    Parsed,
    Response,
    Segment,
    VideoRef,
    is_unpacked,
    registry,
    resolve_reference,
    safe_media_path,
)
from harness.frames import FrameSpec, load_clip
from harness_metrics import encode_rle

from .boxes import BoxFormatError, parse_text_boxes, structured_boxes
from .loader import load_samples
from .parsing import parse as parse_masks
from .targets import video_size

ENV_NAME = "HARNESS_RVTBENCH_BOX_TO_MASK"
ENV_MODEL = "HARNESS_RVTBENCH_BOX_TO_MASK_MODEL"
ENV_DEVICE = "HARNESS_RVTBENCH_BOX_TO_MASK_DEVICE"
_COMPONENTS_MAX = 2  # box-to-mask models kept loaded
_MEMO_LIMIT = 4096  # (doc, boxes) conversions whose masks are kept


def part_reference(name: str) -> str:
    """The registered name of a box-to-mask part ('sam2' -> 'rvtbench.box_to_mask.sam2'), or a module:Factory."""
    if ":" in name or name.startswith("rvtbench."):
        return name
    return f"rvtbench.box_to_mask.{name}"


def configured_pipeline(options: dict) -> dict:
    """{"box_to_mask", "model", "device"} from the dataset options (overridden by the env vars).

    A registered name is checked against the registry here, so a typo fails before any model call.
    """
    name = os.environ.get(ENV_NAME) or options.get("box_to_mask")
    if not name:
        raise DataError(
            f"rvtbench segmentation from boxes: no box-to-mask model configured; set the dataset option "
            f"box_to_mask (e.g. sam2) or {ENV_NAME}"
        )
    ref = part_reference(str(name))
    if ":" not in ref:
        reg = registry()
        if not reg.has("builder", ref):
            known = [n for n in reg.names("builder") if n.startswith("rvtbench.box_to_mask.")]
            raise DataError(
                f"rvtbench segmentation from boxes: box_to_mask '{name}': no part registered as '{ref}'; registered: "
                f"{', '.join(known) or 'none'} (set the dataset option box_to_mask or {ENV_NAME})"
            )
    model = os.environ.get(ENV_MODEL) or options.get("box_to_mask_model")
    device = os.environ.get(ENV_DEVICE) or options.get("box_to_mask_device") or "cpu"
    return {"box_to_mask": ref, "model": model, "device": device}


def pipeline_label(pipeline: dict) -> str:
    """'rvtbench.box_to_mask.sam2(model=PATH)': how results name the source of the masks."""
    return f"{pipeline['box_to_mask']}(model={pipeline.get('model') or 'default'})"


def _component(pipeline: dict) -> Any:
    return _loaded_component(json.dumps(pipeline, sort_keys=True))


@functools.lru_cache(maxsize=_COMPONENTS_MAX)
def _loaded_component(key: str) -> Any:
    """The box-to-mask component of one pipeline (`key`: its config as JSON), loaded once."""
    pipeline = json.loads(key)
    ref = pipeline["box_to_mask"]
    if ":" in ref:
        factory = resolve_reference(ref, what="box_to_mask")
    else:
        factory = registry().get("builder", ref).load()
    options = {"device": pipeline.get("device") or "cpu"}
    if pipeline.get("model"):
        options["model"] = pipeline["model"]
    return factory(**options)


def decode_frames(video: Path, frames: list[int]) -> np.ndarray:
    """(T, H, W, 3) uint8: exactly the source frames `frames` of `video`, at full resolution."""

    ref = VideoRef(path=str(video), segments=tuple(Segment(start=t, end=t + 1) for t in frames))
    clip = load_clip(ref, FrameSpec(strategy="all"))
    if list(clip.indices) != list(frames):
        raise ValueError(f"{video}: asked for frames {frames}, the video gave {list(clip.indices)}")
    return clip.frames


def boxes_to_masks(doc: dict, boxes: list[list[list[float]]]) -> list[dict]:
    """One COCO RLE per evaluation frame of `doc`, from pixel [x, y, w, h] boxes, via the doc's pipeline."""
    frames = [int(t) for t in doc["answer"]["frames"]]
    fields = ("mask_pipeline", "data_root", "video", "id", "height", "width")
    key = json.dumps([{f: doc.get(f) for f in fields}, frames, boxes], sort_keys=True)
    return list(_converted_masks(key))


@functools.lru_cache(maxsize=_MEMO_LIMIT)
def _converted_masks(key: str) -> tuple[dict, ...]:
    """The masks of one conversion (`key`: the doc's fields it reads, the frames and the boxes, as JSON)."""
    doc, frames, boxes = json.loads(key)
    pipeline = doc["mask_pipeline"]
    video = (
        Path(doc["video"])  # a file of a release archive, unpacked by the harness into its cache
        if os.path.isabs(str(doc["video"])) and is_unpacked(doc["video"])
        else safe_media_path(Path(doc["data_root"]), str(doc["video"]), f"doc '{doc.get('id')}'")
    )
    images = decode_frames(video, frames)
    height, width = int(doc.get("height") or images.shape[1]), int(doc.get("width") or images.shape[2])
    if images.shape[1:3] != (height, width):
        raise ValueError(
            f"doc '{doc.get('id')}': video {video} decodes at {images.shape[2]}x{images.shape[1]}, "
            f"the ground truth is {width}x{height}"
        )
    masks = np.asarray(_component(pipeline).masks(images, boxes), dtype=bool)
    if masks.shape != (len(frames), height, width):
        raise ValueError(
            f"{pipeline_label(pipeline)} returned masks of shape {masks.shape}; "
            f"expected {(len(frames), height, width)}"
        )
    return tuple(encode_rle(masks))


def load(root: Path, split: str, options: dict) -> list[dict]:
    """Loader of `rvtbench_seg_boxes`: segmentation rows, each carrying the pipeline and the dataset folder."""
    pipeline = configured_pipeline(options)
    rows = load_samples(root, split, options)
    data_root = str(Path(root).resolve())
    return [
        r if isinstance(r, DroppedRow) else {**r, "mask_pipeline": pipeline, "data_root": data_root}
        for r in rows
    ]


def parse(response: Response, doc: dict) -> Parsed:
    """Native masks are used as they are; otherwise boxes (structured or the text JSON) go through the pipeline.

    Boxes that do not follow the stated format, or none at all, make the answer invalid (J = F = 0, logged).
    """
    pipeline = doc.get("mask_pipeline")
    if not pipeline:
        raise ValueError(
            f"doc '{doc.get('id')}': no mask_pipeline (load it with harness_tasks.rvtbench.mask_pipeline:load)"
        )
    structured = response.structured if isinstance(response.structured, dict) else None
    if structured is not None and "masks" in structured:
        parsed = parse_masks(response, doc)
        parsed.extra["mask_source"] = "model"
        return parsed
    frames = doc["answer"]["frames"]
    label = pipeline_label(pipeline)
    try:
        if structured is not None:
            boxes = structured_boxes(structured, frames)
        else:
            height, width = video_size(doc, doc["answer"])
            boxes = parse_text_boxes(response.text or "", frames, width, height)
    except BoxFormatError as err:
        return Parsed(answer=None, valid=False, note=f"rejected boxes: {err}", extra={"mask_source": label})
    if not any(boxes):  # nothing to turn into masks: the invalid answer, as on rvtbench_seg
        return Parsed(answer=None, valid=False, note="no boxes in any frame", extra={"mask_source": label})
    return Parsed(answer=boxes_to_masks(doc, boxes), extra={"mask_source": label, "boxes": boxes})
