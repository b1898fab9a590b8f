"""Media references: a whole video file, or a virtual clip made of segments of one.

A virtual clip is a list of source frame indices (segments played in order, each optionally reversed or
repeated), so a TempCloze candidate such as "the gap played backwards" needs no re-encoding.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.frames.folder import frame_files


class Segment(BaseModel):
    """A half-open span [start, end) of a source video, in frames or seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: float = Field(ge=0)
    end: float
    unit: Literal["frame", "second"] = "frame"
    reverse: bool = False
    repeat: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _check(self) -> Segment:
        if self.end <= self.start:
            raise ValueError(f"segment end ({self.end}) must be after its start ({self.start})")
        return self

    def frame_range(self, num_frames: int, fps: float) -> range:
        """Source frame indices covered, clipped to the video."""
        if self.unit == "second":
            lo, hi = int(round(self.start * fps)), int(round(self.end * fps))
        else:
            lo, hi = int(self.start), int(self.end)
        lo, hi = max(0, lo), min(num_frames, hi)
        return range(lo, max(lo, hi))


class VideoRef(BaseModel):
    """A video part of a request before decoding: a file, optionally cut into a virtual clip."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    segments: Optional[tuple[Segment, ...]] = None
    label: Optional[str] = None
    # Frame rate of a frame-folder video (a directory of frame images, harness/frames/folder.py), which has
    # none of its own; None: the folder default. A video file's own rate always wins.
    fps: Optional[float] = Field(default=None, gt=0)

    def source_indices(self, num_frames: int, fps: float) -> list[int]:
        """The clip as a list of source frame indices (the whole file when there are no segments)."""
        if not self.segments:
            return list(range(num_frames))
        out: list[int] = []
        for seg in self.segments:
            idx = list(seg.frame_range(num_frames, fps))
            if seg.reverse:
                idx.reverse()
            out.extend(idx * seg.repeat)
        return out

    def clip_key(self) -> list:
        """Segments as plain data, for cache keys."""
        return [s.model_dump(mode="json") for s in (self.segments or ())]


class MediaPathError(ValueError):
    """A doc's media path escapes the dataset folder, or is a symlink out of it that was not allowed."""

    reason = "path_outside_root"


#: Environment variable that lets symlinks in a dataset root point outside it (the opt-in of a user who sets it
#: for every run). See docs/reliability.md for the threat model.
ALLOW_SYMLINKS_ENV = "HARNESS_ALLOW_EXTERNAL_SYMLINKS"
#: the run's `--allow_external_symlinks` (harness.evaluate(allow_external_symlinks=True)), set for the run's
#: duration by harness/evaluation.py: a context variable, so the CLI never writes os.environ
ALLOW_EXTERNAL_SYMLINKS: ContextVar[bool] = ContextVar("allow_external_symlinks", default=False)


def external_symlinks_allowed() -> bool:
    """Whether the user opted in to symlinks that leave the dataset root (`--allow_external_symlinks` for this
    run, or HARNESS_ALLOW_EXTERNAL_SYMLINKS)."""
    if ALLOW_EXTERNAL_SYMLINKS.get():
        return True
    return os.environ.get(ALLOW_SYMLINKS_ENV, "").strip().lower() in ("1", "true", "yes")


@lru_cache(maxsize=1024)
def _real_root(root: str) -> str:
    return os.path.realpath(root)


def _components(rel: str) -> list[str]:
    """The path components of a relative row path as pathlib splits them (empty and '.' parts dropped)."""
    text = rel.replace(os.altsep, os.sep) if os.altsep else rel
    return [p for p in text.split(os.sep) if p and p != "."]


def _resolve_below(real_root: str, rel: str, checked: Optional[set[str]] = None) -> str:
    """realpath(real_root / rel), checking only the components below the (already real) root: a row path
    without '..' and without symlinks under the root is its own real path, at one lstat per component.
    `checked`: folders already found not to be symlinks in this run (not looked at again; the file is)."""
    parts = _components(rel)
    if os.pardir in parts:
        return os.path.realpath(os.path.join(real_root, rel))
    current = real_root
    last = len(parts) - 1
    for i, part in enumerate(parts):
        current = os.path.join(current, part)
        if i < last and checked is not None and current in checked:
            continue
        if os.path.islink(current):
            return os.path.realpath(os.path.join(real_root, rel))
        if i < last and checked is not None:
            checked.add(current)
    return current


def _is_below(path: str, real_root: str) -> bool:
    """Whether a real path lies in a real root (pathlib's `is_relative_to`, on strings)."""
    return path == real_root or path.startswith(real_root.rstrip(os.sep) + os.sep)


@lru_cache(maxsize=256)
def hub_blobs(real_root: str) -> Optional[str]:
    """The `blobs/` folder of the HF hub cache repository when `real_root` lies in one of its snapshots.

    A snapshot's files are symlinks into that folder (huggingface_hub's cache layout: REPO/snapshots/COMMIT/
    -> REPO/blobs/ETAG), so for a fetched release they count as inside the dataset folder."""
    here = real_root
    while True:
        parent = os.path.dirname(here)
        if os.path.basename(parent) == "snapshots" and os.path.isdir(
            os.path.join(os.path.dirname(parent), "blobs")
        ):
            return os.path.join(os.path.dirname(parent), "blobs")
        if parent == here:
            return None
        here = parent


def safe_media_path(root: Path, rel: str, what: str, checked: Optional[set[str]] = None) -> Path:
    """`root / rel` resolved, for a media path taken from a dataset row (see `resolve_media_path`)."""
    return Path(resolve_media_path(root, rel, what, checked))


def _refusal(what: str, kind: str, text: str, full: str, root: Path | str) -> MediaPathError:
    return MediaPathError(
        f"{what}: {kind} '{text}' is a symlink to {full}, outside the dataset folder {root}; "
        "if you trust it, rerun with --allow_external_symlinks (its frames are sent to the model, "
        "which for an API model means a third party; see docs/reliability.md)"
    )


def _inside_root(full: str, real_root: str) -> bool:
    """Whether a real path lies in the dataset folder (or, for a hub snapshot, in its repository's blobs)."""
    blobs = hub_blobs(real_root)
    return _is_below(full, real_root) or (blobs is not None and _is_below(full, blobs))


def _check_frames(full: str, real_root: str, what: str, text: str, root: Path | str) -> None:
    """A frame folder's frames are files of the dataset too: a frame that is a link out is refused."""
    if not os.path.isdir(full):
        return
    for frame in frame_files(full):
        if frame.is_symlink():
            real = os.path.realpath(frame)
            if not _inside_root(real, real_root):
                raise _refusal(what, f"frame '{frame.name}' of the frame folder", text, real, root)


def resolve_media_path(
    root: Path | str, rel: str, what: str, checked: Optional[set[str]] = None, kind: str = "media path"
) -> str:
    """`root / rel` resolved, for a media path (or split file, `kind`) taken from a dataset.

    The row's path must stay inside the root as written: absolute paths and `..` that climb out are
    refused. In a release fetched into the HF hub cache, the snapshot's symlinks into its repository's
    `blobs/` are inside (`hub_blobs`). A symlink the user placed inside the root (the file, a folder on the
    way, or a frame of a frame folder) may point elsewhere only with the opt-in `--allow_external_symlinks`
    (an API model would receive the frames of whatever it points at).
    `checked`: a set the caller keeps for one run, so the folders many rows share are checked once.
    """
    text = str(rel)
    if os.path.isabs(text) or text.startswith(("/", "\\")):
        raise MediaPathError(
            f"{what}: {kind} '{text}' is absolute; paths must be relative to the dataset folder"
        )
    if os.path.normpath(text).split(os.sep)[0] == os.pardir:
        raise MediaPathError(f"{what}: {kind} '{text}' escapes the dataset folder {root} ('..')")
    real_root = _real_root(str(root))
    full = _resolve_below(real_root, text, checked)
    if external_symlinks_allowed():
        return full
    if not _inside_root(full, real_root):
        raise _refusal(what, kind, text, full, root)
    marker = full + os.sep + "*frames"  # a frame folder many rows share is listed once per run
    if (checked is None or marker not in checked) and os.path.isdir(full):
        _check_frames(full, real_root, what, text, root)
        if checked is not None:
            checked.add(marker)
    return full


def confine_absolute(root: Path | str, path: str, what: str) -> str:
    """An absolute media path (a task hook built it, e.g. a virtual clip's source) kept only when it resolves
    inside the dataset folder `root`, or with `--allow_external_symlinks`; else MediaPathError."""
    real_root = _real_root(str(root))
    full = os.path.realpath(path)
    if external_symlinks_allowed():
        return path
    if not _inside_root(full, real_root):
        raise MediaPathError(
            f"{what}: media path '{path}' is outside the dataset folder {root}; a task may only read files "
            "inside it (rerun with --allow_external_symlinks if you trust it; see docs/reliability.md)"
        )
    _check_frames(full, real_root, what, path, root)
    return path
