"""Mask and box inputs: boolean arrays or COCO RLE in, boolean (T, H, W) arrays out; box format converters.

Every mask metric accepts the same masks either as arrays or as COCO run-length encodings and must give
identical scores, so all inputs pass through `as_mask_stack`. RLE decoding is pycocotools' C code.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pycocotools import mask as coco_mask

MASK_EXPECTED = (
    "a boolean array of shape (T, H, W) or (H, W), a COCO RLE dict {'size': [H, W], 'counts': ...}, "
    "or a list of such RLE dicts (one per frame)"
)


def _is_rle(obj: Any) -> bool:
    return isinstance(obj, Mapping) and "size" in obj and "counts" in obj


def _rle_to_compressed(rle: Mapping, name: str) -> dict:
    """Return an RLE that pycocotools' decoder accepts (compressed counts), converting list counts."""
    size = rle["size"]
    if not (isinstance(size, Sequence) and len(size) == 2):
        raise ValueError(f"{name}: RLE 'size' must be [height, width], got {size!r}")
    height, width = int(size[0]), int(size[1])
    counts = rle["counts"]
    if isinstance(counts, (list, tuple)):
        if sum(int(c) for c in counts) != height * width:
            raise ValueError(
                f"{name}: uncompressed RLE counts sum to {sum(counts)}, expected height*width = {height * width}"
            )
        return coco_mask.frPyObjects({"size": [height, width], "counts": list(counts)}, height, width)
    if isinstance(counts, (str, bytes)):
        return {"size": [height, width], "counts": counts}
    raise ValueError(
        f"{name}: RLE 'counts' must be a string, bytes or a list of ints, got {type(counts).__name__}"
    )


def decode_rle(rles: Mapping | Sequence[Mapping], name: str = "mask") -> np.ndarray:
    """Decode one RLE dict (-> (1, H, W)) or a list of RLE dicts (-> (T, H, W)) to a boolean array."""
    items = [rles] if _is_rle(rles) else list(rles)
    if not items:
        raise ValueError(f"{name}: empty list of RLE masks; expected at least one frame")
    for i, item in enumerate(items):
        if not _is_rle(item):
            raise ValueError(
                f"{name}[{i}]: expected a COCO RLE dict with 'size' and 'counts', got {type(item).__name__}"
            )
    compressed = [_rle_to_compressed(item, f"{name}[{i}]") for i, item in enumerate(items)]
    sizes = {tuple(c["size"]) for c in compressed}
    if len(sizes) != 1:
        raise ValueError(f"{name}: RLE frames have different sizes {sorted(sizes)}; expected one (H, W)")
    with warnings.catch_warnings():
        # pycocotools' decoder trips numpy 2's __array__ copy-keyword deprecation; the result is correct.
        warnings.simplefilter("ignore", DeprecationWarning)
        decoded = coco_mask.decode(compressed)  # (H, W, T), C code
    return np.moveaxis(decoded, -1, 0).astype(bool, copy=False)


def as_mask_stack(masks: Any, name: str = "mask") -> np.ndarray:
    """Normalise a mask input to a boolean (T, H, W) array; a single (H, W) mask becomes T = 1."""
    if _is_rle(masks) or (
        isinstance(masks, (list, tuple)) and len(masks) > 0 and all(_is_rle(m) for m in masks)
    ):
        return decode_rle(masks, name)
    if isinstance(masks, (list, tuple)) and len(masks) > 0 and all(isinstance(m, np.ndarray) for m in masks):
        masks = np.stack(masks)
    if not isinstance(masks, np.ndarray):
        raise ValueError(f"{name}: expected {MASK_EXPECTED}, got {type(masks).__name__}")
    if masks.ndim == 2:
        masks = masks[None]
    if masks.ndim != 3:
        raise ValueError(f"{name}: expected {MASK_EXPECTED}, got an array of shape {masks.shape}")
    if masks.dtype == bool:
        return masks
    if masks.dtype.kind not in "biuf":
        raise ValueError(f"{name}: expected a boolean or numeric mask array, got dtype {masks.dtype}")
    return masks != 0


def mask_pair(prediction: Any, ground_truth: Any) -> tuple[np.ndarray, np.ndarray]:
    """Normalise a (prediction, ground truth) pair and check that their (T, H, W) shapes agree."""
    pred = as_mask_stack(prediction, "prediction")
    gt = as_mask_stack(ground_truth, "ground_truth")
    if pred.shape != gt.shape:
        raise ValueError(
            f"prediction has shape {pred.shape} but ground_truth has shape {gt.shape}; "
            "expected the same (T, H, W) (same frames, same resolution)"
        )
    return pred, gt


def encode_rle(masks: np.ndarray) -> list[dict]:
    """Encode a boolean (T, H, W) or (H, W) array as a list of COCO RLE dicts with str counts."""
    stack = as_mask_stack(masks, "masks")
    encoded = coco_mask.encode(np.asfortranarray(np.moveaxis(stack, 0, -1).astype(np.uint8)))
    return [
        {"size": [int(r["size"][0]), int(r["size"][1])], "counts": r["counts"].decode("ascii")}
        for r in encoded
    ]


def as_boxes(boxes: Any, name: str = "boxes") -> np.ndarray:
    """Normalise boxes [x, y, w, h] (one or many) to a float (N, 4) array; negative sizes are rejected."""
    try:
        arr = np.asarray(boxes, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected [x, y, w, h] numbers or an (N, 4) array ({err})") from None
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(f"{name}: expected boxes [x, y, w, h] as an (N, 4) array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: boxes contain NaN or infinite values")
    if np.any(arr[:, 2:] < 0):
        raise ValueError(
            f"{name}: negative width/height; boxes must be [x, y, w, h] "
            "(convert [x1, y1, x2, y2] with metrics.xyxy_to_xywh)"
        )
    return arr


def xyxy_to_xywh(boxes: Any) -> np.ndarray:
    """Convert corner boxes [x1, y1, x2, y2] to COCO [x, y, w, h] (the format every box metric takes)."""
    arr = np.asarray(boxes, dtype=float)
    single = arr.ndim == 1
    arr = arr.reshape(-1, 4) if arr.size % 4 == 0 and arr.ndim <= 2 else None
    if arr is None:
        raise ValueError(f"boxes: expected [x1, y1, x2, y2] or an (N, 4) array, got shape {np.shape(boxes)}")
    if np.any(arr[:, 2] < arr[:, 0]) or np.any(arr[:, 3] < arr[:, 1]):
        raise ValueError("boxes: x2 < x1 or y2 < y1; expected corner boxes [x1, y1, x2, y2]")
    out = np.concatenate([arr[:, :2], arr[:, 2:] - arr[:, :2]], axis=1)
    return out[0] if single else out


def xywh_to_xyxy(boxes: Any) -> np.ndarray:
    """Convert COCO [x, y, w, h] boxes to corner boxes [x1, y1, x2, y2]."""
    single = np.asarray(boxes).ndim == 1
    arr = as_boxes(boxes)
    out = np.concatenate([arr[:, :2], arr[:, :2] + arr[:, 2:]], axis=1)
    return out[0] if single else out
