"""load_clip: a video reference and a frame spec -> decoded frames, through the frame cache.

clip = ref.source_indices(N, fps); positions = sample_indices(len(clip), spec, fps); the frames used are
clip[p] for each position (virtual clips may repeat or reverse them). Each distinct source frame is
decoded once, at the target size, then the clip is assembled in order.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import logging
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Optional

import numpy as np

from harness.frames.cache import FrameCache, frame_cache_key
from harness.frames.clip import DecodedClip
from harness.frames.content_hash import HashStore, media_identity
from harness.frames.decord_decoder import decode_decord, decord_available
from harness.frames.errors import MediaError
from harness.frames.folder import decode_folder, folder_decoder_version, index_folder, is_frame_folder
from harness.frames.probe import VideoIndex, check_file, index_video
from harness.frames.pyav_decoder import decode_pyav
from harness.frames.ref import ClipRef
from harness.frames.sampler import sample_indices
from harness.frames.scaling import target_size
from harness.frames.spec import FrameSpec

log = logging.getLogger(__name__)

Admit = Callable[[int], AbstractContextManager[Optional[int]]]  # bytes to decode -> held: decoder threads


def _installed(module: str) -> bool:
    """Whether `module` can be found, without importing it (a module blocked in sys.modules cannot)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


@functools.lru_cache(maxsize=1)
def _installed_versions() -> tuple[tuple[str, str], ...]:
    """From the installed distributions' metadata: keying a request (all a warm run does with frames)
    imports no decoder, which costs more than the rest of keying."""
    out = [("pyav", f"pyav-{importlib.metadata.version('av')}")]
    if _installed("decord"):
        out.append(("decord", f"decord-{importlib.metadata.version('decord')}"))
    return tuple(out)


def decoder_versions() -> dict[str, str]:
    """Installed decoders and their versions, e.g. {"pyav": "pyav-18.1.0", "decord": "decord-0.6.0"}."""
    return dict(_installed_versions())


def decoder_identity(spec: FrameSpec) -> str:
    """The one definition of which decoder `spec` decodes with, as it goes into the response- and frame-cache
    keys: the installed version of the decoder it names (its bare name when that one is not installed: decoding
    says so), every candidate's for auto ("auto:decord=decord-0.6.0,pyav=pyav-18.1.0")."""
    versions = decoder_versions()
    if spec.decoder == "auto":
        return "auto:" + ",".join(f"{k}={v}" for k, v in sorted(versions.items()))
    return versions.get(spec.decoder, spec.decoder)


def decoder_version_for(spec: FrameSpec) -> str:
    """`decoder_identity(spec)`, refused (RuntimeError) when `spec` names a decoder that is not installed."""
    if spec.decoder != "auto" and spec.decoder not in decoder_versions():
        raise RuntimeError(
            f"frame spec asks for decoder '{spec.decoder}', which is not installed; "
            f"install it (pip install {spec.decoder}) or set decoder: auto"
        )
    return decoder_identity(spec)


def choose_engine(spec: FrameSpec, index: VideoIndex) -> str:
    """Which decoder runs first for `spec` on this video ('pyav' or 'decord').

    auto: the planned PyAV path for H.264 in MP4 with a clean timestamp index (it skips
    non-reference frames and seeks to keyframes, measured faster than decord's get_batch; see
    docs/frames.md); decord for everything else when installed, PyAV otherwise.
    """
    if spec.decoder != "auto":
        return spec.decoder
    if index.nal_length_size and index.pts_to_index:
        return "pyav"
    return "decord" if decord_available() else "pyav"


def _decode(
    engine: str,
    path: str,
    index: VideoIndex,
    wanted: list[int],
    size: tuple[int, int],
    threads: Optional[int] = None,
) -> np.ndarray:
    if engine == "decord":
        return decode_decord(path, index.info.num_frames, wanted, size, index.info.rotation, threads=threads)
    return decode_pyav(path, index, wanted, size, threads=threads)


def decode_frames(
    path: str,
    index: VideoIndex,
    wanted: list[int],
    size: tuple[int, int],
    spec: FrameSpec,
    threads: Optional[int] = None,
) -> tuple[np.ndarray, str]:
    """Decode sorted distinct `wanted` frames with the chosen engine, falling back to PyAV in auto mode
    (`threads`: the decoder's own threads, None for its default)."""
    versions = decoder_versions()
    if spec.decoder == "decord" and not decord_available():
        raise RuntimeError(
            "frame spec asks for decoder 'decord', which is not installed; "
            "install it (pip install decord) or set decoder: auto / pyav"
        )
    engine = choose_engine(spec, index)
    try:
        return _decode(engine, path, index, wanted, size, threads), versions[engine]
    except MediaError as exc:
        if spec.decoder != "auto" or engine == "pyav":
            raise
        log.warning("decord failed on %s (%s); falling back to PyAV", path, exc.detail or exc.reason)
    return _decode("pyav", path, index, wanted, size, threads), versions["pyav"]


def clip_key(ref: ClipRef, spec: FrameSpec, hashes: Optional[HashStore] = None) -> str:
    """The identity of the clip `spec` picks from `ref`: its frame-cache key (content identity, segments,
    spec, decoder versions), used on disk and for sharing decoded clips within a run (`hashes`: the run's
    content hashes, so the video is read once; None: hashed now). Raises MediaError for a video that cannot
    be read."""
    folder = is_frame_folder(ref.path)
    if not folder:
        check_file(ref.path)
    version = folder_decoder_version() if folder else decoder_version_for(spec)
    return frame_cache_key(media_identity(ref.path, hashes), ref, spec, version)


def load_clip(
    ref: ClipRef,
    spec: FrameSpec,
    cache: Optional[FrameCache] = None,
    admit: Optional[Admit] = None,
    hashes: Optional[HashStore] = None,
) -> DecodedClip:
    """Decode the frames `spec` picks from `ref` (a file or a virtual clip), using `cache` when given.

    A cache hit needs no probe and no decoder: the key is the file's content identity, the segments,
    the spec and the decoder versions. `admit(nbytes)`, when given, is entered around the decoding itself
    with the bytes the decoded frames will take and gives the decoder's thread count (None: its default);
    harness.frames.gate uses it to bound how much is decoded at once. `hashes`: the run's content hashes
    the cache key is made from (see `clip_key`).
    Raises MediaError (naming the file and a reason tag) for a missing, empty, truncated, corrupt or
    undecodable video, or segments that select no frame of it.
    """
    try:
        return _load_clip(ref, spec, cache, admit, hashes)
    except OSError as exc:  # any I/O failure on the media is a counted media error, never a crash
        raise MediaError(ref.path, "unreadable", f"{type(exc).__name__}: {exc}") from None


def _load_clip(
    ref: ClipRef, spec: FrameSpec, cache: Optional[FrameCache], admit: Optional[Admit], hashes: Optional[HashStore]
) -> DecodedClip:
    path = ref.path
    folder = is_frame_folder(path)  # a directory of frame images is a video (harness/frames/folder.py)
    key = None
    if cache is not None:
        key = clip_key(ref, spec, hashes)
        hit = cache.get(key)
        if hit is not None:
            log.debug("frames %s: cache hit, indices %s", path, hit.indices)
            return hit
    index = index_folder(path, ref.fps) if folder else index_video(path)
    info = index.info
    clip = ref.source_indices(info.num_frames, info.fps)
    if not clip:
        raise MediaError(
            path, "empty_clip", f"segments {ref.clip_key()} select none of {info.num_frames} frames"
        )
    positions = sample_indices(len(clip), spec, info.fps)
    source = [clip[p] for p in positions]
    wanted = sorted(set(source))
    size = target_size(info.width, info.height, spec)
    nbytes = (len(wanted) + (len(source) if source != wanted else 0)) * size[0] * size[1] * 3
    with admit(nbytes) if admit is not None else nullcontext() as threads:
        if folder:
            decoded, decoder = decode_folder(index, wanted, size), folder_decoder_version()
        else:
            decoded, decoder = decode_frames(path, index, wanted, size, spec, threads)
        if source == wanted:
            frames = decoded
        else:
            row = {t: r for r, t in enumerate(wanted)}
            frames = decoded[[row[s] for s in source]]
    result = DecodedClip(
        frames=frames,
        indices=source,
        timestamps=[p / info.fps if info.fps else 0.0 for p in positions],
        fps=info.fps,
        source_size=(info.width, info.height),
        decoder=decoder,
        from_cache=False,
    )
    log.debug("frames %s: decoded with %s, indices %s", path, decoder, source)
    if cache is not None and key is not None:
        cache.put(key, result)
    return result
