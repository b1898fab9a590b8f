"""Output size and the one colour-conversion path both decoders share.

decord converts with an FFmpeg filter graph `scale=W:H` (bilinear swscale) to rgb24. PyAV's
`VideoFrame.reformat` uses different swscale settings and differs by up to ~20 levels after scaling, so
the PyAV decoder pushes frames through the same filter graph (`scale=W:H:flags=bilinear,format=rgb24`),
which is bit-identical to decord's output (see docs/frames.md). Scaling happens on sampled frames only.
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Optional

import numpy as np

from harness.frames.spec import FrameSpec

GRAPH_THREADS = 1


def target_size(width: int, height: int, spec: FrameSpec) -> tuple[int, int]:
    """(w, h) after `max_side` / `max_height`: aspect kept (sides rounded half up), never upscaled,
    each side at least 1."""
    scale = 1.0
    if spec.max_side:
        scale = min(scale, spec.max_side / max(width, height))
    if spec.max_height:
        scale = min(scale, spec.max_height / height)
    if scale >= 1.0:
        return width, height
    return max(1, math.floor(width * scale + 0.5)), max(1, math.floor(height * scale + 0.5))


def scale_threads(width: int, height: int) -> int:
    """swscale slice threads: several for HD frames (bit-exact, measured), one for small ones."""
    if width * height < 640 * 360:
        return 1
    return max(1, min(4, os.cpu_count() or 1))


_ROTATE = {90: [("transpose", "clock")], 180: [("hflip", ""), ("vflip", "")], 270: [("transpose", "cclock")]}


class RgbConverter:
    """Converts decoded PyAV frames to (h, w, 3) uint8 RGB at the target size through a filter graph."""

    def __init__(self, out_width: int, out_height: int, rotation: int = 0) -> None:
        self.out_width = out_width
        self.out_height = out_height
        self.rotation = rotation  # clockwise degrees, applied after scaling (on the small frame)
        self._graph = None
        self._src_fmt: Optional[tuple] = None

    def _build(self, frame) -> None:
        import av

        graph = av.filter.Graph()
        if hasattr(graph, "threads"):  # PyAV >= 16; older graphs keep FFmpeg's default thread count
            graph.threads = GRAPH_THREADS
        src = graph.add_buffer(
            width=frame.width,
            height=frame.height,
            format=frame.format.name,
            time_base=frame.time_base or Fraction(1, 1000),
        )
        threads = scale_threads(frame.width, frame.height)
        w, h = (
            (self.out_height, self.out_width)
            if self.rotation in (90, 270)
            else (self.out_width, self.out_height)
        )
        chain = [
            graph.add("scale", f"{w}:{h}:flags=bilinear:threads={threads}"),
            graph.add("format", "rgb24"),
        ]
        chain += [graph.add(name, args) for name, args in _ROTATE.get(self.rotation, ())]
        chain.append(graph.add("buffersink"))
        prev = src
        for node in chain:
            prev.link_to(node)
            prev = node
        graph.configure()
        self._graph = graph
        self._src_fmt = (frame.width, frame.height, frame.format.name)

    def convert(self, frame, out: Optional[np.ndarray] = None) -> np.ndarray:
        """RGB pixels of `frame` at the target size, written into `out` when given (one copy only)."""
        if self._src_fmt != (frame.width, frame.height, frame.format.name):
            self._build(frame)
        self._graph.push(frame)
        rgb = self._graph.pull()
        plane = rgb.planes[0]
        view = np.frombuffer(plane, dtype=np.uint8).reshape(rgb.height, plane.line_size)
        view = view[:, : rgb.width * 3].reshape(rgb.height, rgb.width, 3)
        if out is None:
            return view.copy()
        out[...] = view
        return out
