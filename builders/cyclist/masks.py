"""Per-frame instance masks as COCO RLE, with per-object pixel area, box and depth statistics."""

from __future__ import annotations

import numpy as np
from pycocotools import mask as mask_util


class MaskRecorder:
    """Collects one scene's instance-id maps frame by frame and emits the masks JSON record."""

    def __init__(self, num_objects: int, width: int, height: int, renderer: str):
        self.n, self.w, self.h, self.renderer = num_objects, width, height, renderer
        self.objects = [
            {
                "index": i,
                "segmentations": [],
                "area": [],
                "bbox": [],
                "depth": {"min": [], "mean": [], "max": []},
            }
            for i in range(num_objects)
        ]

    def add(self, ids: np.ndarray, depth: np.ndarray) -> None:
        """Add one frame: ids (H, W) object index or -1, depth (H, W) camera z-depth of the visible surface."""
        if self.n == 0:
            return
        flat_ids = np.ascontiguousarray(ids.T).ravel()  # COCO RLE runs down columns (Fortran order)
        flat_depth = np.ascontiguousarray(depth.T).ravel()
        change = np.flatnonzero(flat_ids[1:] != flat_ids[:-1]) + 1
        starts = np.concatenate([[0], change])
        ends = np.concatenate([change, [flat_ids.size]])
        values = flat_ids[starts]
        counts = np.bincount(flat_ids + 1, minlength=self.n + 1)[1:]
        rles = [self._rle(starts[values == i], ends[values == i], flat_ids.size) for i in range(self.n)]
        fg = flat_ids >= 0
        order = np.argsort(flat_ids[fg], kind="stable")
        fg_ids, fg_depth = flat_ids[fg][order], flat_depth[fg][order]
        first = np.searchsorted(fg_ids, np.arange(self.n + 1))
        for i, rec in enumerate(self.objects):
            rle = rles[i]
            rec["segmentations"].append({"size": [self.h, self.w], "counts": rle["counts"].decode("ascii")})
            area = int(counts[i])
            rec["area"].append(area)
            if area:
                rec["bbox"].append([round(float(v), 2) for v in mask_util.toBbox(rle)])
                d = fg_depth[first[i] : first[i + 1]]
                for key, val in (("min", d.min()), ("mean", d.mean()), ("max", d.max())):
                    rec["depth"][key].append(round(float(val), 4))
            else:
                rec["bbox"].append(None)
                for key in ("min", "mean", "max"):
                    rec["depth"][key].append(None)

    def _rle(self, starts: np.ndarray, ends: np.ndarray, total: int) -> dict:
        """Compressed COCO RLE from the [start, end) runs of one object in column-major order."""
        edges = np.empty(2 * len(starts) + 2, dtype=np.int64)
        edges[0], edges[-1] = 0, total
        edges[1:-1:2], edges[2:-1:2] = starts, ends
        counts = np.diff(edges).tolist()
        return mask_util.frPyObjects({"size": [self.h, self.w], "counts": counts}, self.h, self.w)

    def record(self, stem: str) -> dict:
        """The masks JSON of a scene (DIR/masks/{stem}.json)."""
        return {
            "scene": stem,
            "renderer": self.renderer,
            "width": self.w,
            "height": self.h,
            "num_frames": len(self.objects[0]["area"]) if self.objects else 0,
            "depth_unit": "camera z-depth in scene units",
            "objects": self.objects,
        }


def decode(segmentation: dict) -> np.ndarray:
    """A stored RLE back to a (H, W) bool mask."""
    rle = {"size": segmentation["size"], "counts": segmentation["counts"].encode("ascii")}
    return mask_util.decode(rle).astype(bool)
