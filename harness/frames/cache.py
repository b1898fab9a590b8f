"""The on-disk frame cache: raw uint8 arrays behind a small JSON header, no pickle.

One file per clip: b"HFC2", a 4-byte little-endian header length, the JSON header (shape, indices,
timestamps, fps, source size, decoder, and the payload's byte count and CRC-32), zero padding to a 64-byte
boundary, then the raw pixels (read back as a copy-on-write memory map). A read checks the header fields,
the length and the CRC-32, so a damaged or truncated payload is never served: the entry is dropped with a
warning and the clip decoded again. Files
are written to a temporary name and renamed (atomic), so readers in other processes see a whole entry
or none. The cache is size-capped: hits touch the file's mtime and the oldest entries are evicted under
a portable file lock (harness.cache.locking). Any OSError while writing (a full disk) disables writing for the rest of the process
with one warning; the run goes on without it.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import mmap
import os
import time
import zlib
from pathlib import Path
from typing import Optional

import numpy as np

from harness.cache.locking import exclusive_lock
from harness.files import atomic_path, open_regular
from harness.frames.clip import DecodedClip
from harness.frames.ref import ClipRef
from harness.frames.spec import FrameSpec

log = logging.getLogger(__name__)

MAGIC = b"HFC2"
MAX_ENTRY_BYTES = 1 << 40  # no real clip comes near; a larger "entry" is damage
SUFFIX = ".frames"
FRAME_CACHE_VERSION = 2  # bump when the file format or the decoding pipeline's output changes
#: the frame cache's default size cap (docs/frames.md, README "Where the cache lives"): the least recently
#: used entries are evicted past it; `python -m harness cache prune --max-size` shrinks it further
DEFAULT_MAX_BYTES = 20 * 2**30
_ALIGN = 64
_RESCAN_S = 5.0
_STALE_TMP_S = 3600.0


def frame_cache_key(media_id: str, ref: ClipRef, spec: FrameSpec, decoder_version: str) -> str:
    """Key of a decoded clip: media content identity + clip segments + frame spec + decoder version.

    The path and label of `ref` are left out on purpose: a moved or relabelled file keeps its entries.
    A frame-folder rate (`ref.fps`) is part of the key when given (it moves timestamps and fps sampling).
    """
    fields = {
        "v": FRAME_CACHE_VERSION,
        "media": media_id,
        "segments": ref.clip_key(),
        "spec": spec.canonical(),
        "decoder": decoder_version,
    }
    if ref.fps is not None:
        fields["fps"] = float(ref.fps)
    blob = json.dumps(
        fields,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:40]


class FrameCache:
    """A size-capped directory of decoded clips shared safely by several processes."""

    def __init__(self, root: Path | str, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = Path(root)
        self.max_bytes = int(max_bytes)
        self.disabled_reason: Optional[str] = None
        self._estimate: Optional[int] = None
        self._last_scan = 0.0

    def path_for(self, key: str) -> Path:
        """Where the entry for `key` lives."""
        return self.root / key[:2] / f"{key}{SUFFIX}"

    # reading
    def get(self, key: str) -> Optional[DecodedClip]:
        """The cached clip for `key` (marked from_cache) or None; a damaged entry is removed and missed."""
        path = self.path_for(key)
        if not os.path.lexists(path):  # the usual miss: one stat
            return None
        try:  # a regular file only: a FIFO put where an entry belongs is never waited on (harness.files)
            with open_regular(path, "frame cache entry", MAX_ENTRY_BYTES, ValueError) as f:
                clip = _read_entry(f)
        except (OSError, ValueError) as exc:
            if not os.path.lexists(path):  # evicted meanwhile by another run sharing the cache: a plain miss
                return None
            log.warning("frame cache: dropping unreadable entry %s (%s)", path, exc)
            _unlink_quietly(path)
            return None
        try:
            os.utime(path, None)  # LRU: a hit makes the entry young
        except OSError:
            pass
        return clip

    # writing
    def put(self, key: str, clip: DecodedClip) -> None:
        """Store `clip` under `key` atomically; never raises for disk problems (disables writes instead)."""
        if self.disabled_reason is not None:
            return
        try:
            with atomic_path(self.path_for(key)) as tmp:
                size = _write_entry(tmp, clip)
        except OSError as exc:
            self._disable(exc)
            return
        if self._estimate is not None:
            self._estimate += size
        try:
            self._maybe_evict()
        except OSError as exc:
            self._disable(exc)

    def _disable(self, exc: OSError) -> None:
        what = "disk full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "write failed"
        self.disabled_reason = f"{what} in {self.root}: {exc}"
        log.warning(
            "frame cache disabled for the rest of this run (%s); frames will be decoded without caching. "
            "Free space or point --cache_dir elsewhere.",
            self.disabled_reason,
        )

    # eviction
    def _maybe_evict(self) -> None:
        now = time.monotonic()
        if (
            self._estimate is not None
            and self._estimate <= self.max_bytes
            and now - self._last_scan < _RESCAN_S
        ):
            return
        self.evict()

    def evict(self) -> int:
        """Delete least recently used entries until the total is under the cap; returns bytes freed."""
        self.root.mkdir(parents=True, exist_ok=True)
        freed = 0
        with exclusive_lock(self.root / ".lock"):
            entries, total = self._scan()
            if total > self.max_bytes:
                entries.sort()
                for _mtime, size, path in entries:
                    if total <= self.max_bytes:
                        break
                    if _unlink_quietly(path):
                        total -= size
                        freed += size
        self._estimate = total
        self._last_scan = time.monotonic()
        return freed

    def _scan(self) -> tuple[list[tuple[float, int, Path]], int]:
        entries: list[tuple[float, int, Path]] = []
        total = 0
        now = time.time()
        for sub in os.scandir(self.root):
            if not sub.is_dir(follow_symlinks=False):
                continue
            for e in os.scandir(sub.path):
                try:
                    st = e.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if e.name.endswith(SUFFIX) and not e.name.startswith("."):
                    entries.append((st.st_mtime, st.st_size, Path(e.path)))
                    total += st.st_size
                elif e.name.endswith(".tmp") and now - st.st_mtime > _STALE_TMP_S:
                    _unlink_quietly(Path(e.path))  # left by a killed writer
        return entries, total

    def total_bytes(self) -> int:
        """Bytes currently held by entries (a fresh scan)."""
        if not self.root.exists():
            return 0
        return self._scan()[1]


def _header(clip: DecodedClip, frames: np.ndarray) -> bytes:
    meta = {
        "shape": list(frames.shape),
        "nbytes": int(frames.nbytes),
        "crc32": zlib.crc32(memoryview(frames.reshape(-1))),
        "indices": [int(i) for i in clip.indices],
        "timestamps": [float(t) for t in clip.timestamps],
        "fps": float(clip.fps),
        "source_size": [int(v) for v in clip.source_size],
        "decoder": clip.decoder,
    }
    return json.dumps(meta, separators=(",", ":")).encode()


def _write_entry(tmp: Path, clip: DecodedClip) -> int:
    frames = np.ascontiguousarray(clip.frames, dtype=np.uint8)
    header = _header(clip, frames)
    head = MAGIC + len(header).to_bytes(4, "little") + header
    head += b"\0" * (-len(head) % _ALIGN)
    with open(tmp, "wb") as f:
        f.write(head)
        f.write(memoryview(frames.reshape(-1)))
    return len(head) + frames.nbytes


def _read_entry(f) -> DecodedClip:
    start = f.read(8)
    if len(start) < 8 or start[:4] != MAGIC:
        raise ValueError("not a frame cache entry of this version")
    hlen = int.from_bytes(start[4:8], "little")
    try:
        meta = json.loads(f.read(hlen))
        shape = tuple(int(v) for v in meta["shape"])
        count, crc = int(meta["nbytes"]), int(meta["crc32"])
        fields = (
            [int(i) for i in meta["indices"]],
            [float(t) for t in meta["timestamps"]],
            float(meta["fps"]),
            (int(meta["source_size"][0]), int(meta["source_size"][1])),
            str(meta["decoder"]),
        )
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
        raise ValueError(f"corrupt header ({type(exc).__name__}: {exc})") from None
    if len(shape) != 4 or shape[3] != 3 or min(shape) < 0 or int(np.prod(shape)) != count:
        raise ValueError(f"corrupt header (shape {list(shape)} does not hold {count} bytes)")
    if len(fields[0]) != shape[0]:
        raise ValueError(f"corrupt header ({len(fields[0])} indices for {shape[0]} frames)")
    offset = 8 + hlen
    offset += -offset % _ALIGN
    if os.fstat(f.fileno()).st_size != offset + count:
        raise ValueError(f"entry payload is not {count} bytes")
    frames = _map_payload(f, offset, count)
    if zlib.crc32(memoryview(frames)) != crc:
        raise ValueError("entry payload fails its CRC-32 check")
    indices, timestamps, fps, source_size, decoder = fields
    return DecodedClip(
        frames=frames.reshape(shape),
        indices=indices,
        timestamps=timestamps,
        fps=fps,
        source_size=source_size,
        decoder=decoder,
        from_cache=True,
    )


def _map_payload(f, offset: int, count: int) -> np.ndarray:
    """The payload as a private copy-on-write mapping of the file: no copy through a read buffer and no
    fresh pages to zero, so a hit costs little more than its CRC. Entries are only ever replaced by rename
    and removed by unlink, never written in place, so a mapping stays valid however long the frames live;
    writes to the frames stay private to this process."""
    if count == 0:
        return np.empty(0, dtype=np.uint8)
    try:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):  # a filesystem that cannot map files: read it
        f.seek(offset)
        return np.fromfile(f, dtype=np.uint8, count=count)
    return np.frombuffer(mapped, dtype=np.uint8, count=count, offset=offset)


def _unlink_quietly(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True
