"""Tiny mirrored checkpoints (tests/tiny_mirrors.py), built at most once per test process and shared by the
model test files: building one takes seconds, loading it back milliseconds."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import tiny_mirrors

# preset -> the tiny family it runs on (the model tests' one table of it)
PRESET_FAMILY = {
    "llava_video_7b": "llava_onevision",
    "llava_onevision_7b": "llava_onevision",
    "llava_next_video_7b": "llava_next_video",
    "qwen2_vl_7b": "qwen2_vl",
    "qwen2_5_vl_7b": "qwen2_5_vl",
    "qwen3_vl_8b": "qwen3_vl",
    "internvl3_8b": "internvl",
}

_ROOT: list[Path] = []
_BUILT: dict[str, Path] = {}


def checkpoint(family: str) -> Path:
    """The folder of the tiny checkpoint of `family` (a key of tiny_mirrors.BUILDERS)."""
    if family not in _BUILT:
        if not _ROOT:
            root = Path(tempfile.mkdtemp(prefix="tiny_vlms_"))
            atexit.register(shutil.rmtree, root, True)
            _ROOT.append(root)
        _BUILT[family] = tiny_mirrors.BUILDERS[family](_ROOT[0] / family)
    return _BUILT[family]


class Checkpoints(dict):
    """A dict view that builds a family's checkpoint on first access."""

    def __missing__(self, family: str) -> Path:
        path = checkpoint(family)
        self[family] = path
        return path
