"""Caches under one cache dir: responses (SQLite) and their keys, videos' content hashes, file locks; the
frame cache lives in harness.frames."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """$HARNESS_CACHE_DIR, else $XDG_CACHE_HOME/video-harness, else ~/.cache/video-harness."""
    env = os.environ.get("HARNESS_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "video-harness"
