"""Frames: the task-owned frame spec, index samplers, decoders (decord, PyAV) and the frame cache.

Public API: FrameSpec, sample_indices, probe_video / VideoInfo, load_clip / DecodedClip, FrameCache,
frame_cache_key, MediaError, decoder_versions, write_video, VIDEO_SUFFIXES (what a folder of videos holds). Decoders are imported lazily.
"""

from harness.frames.cache import FrameCache, frame_cache_key
from harness.frames.clip import DecodedClip
from harness.frames.errors import MediaError
from harness.frames.info import VIDEO_SUFFIXES
from harness.frames.loader import decoder_identity, decoder_version_for, decoder_versions, load_clip
from harness.frames.probe import VideoInfo, probe_video
from harness.frames.sampler import sample_indices
from harness.frames.scaling import target_size
from harness.frames.spec import FrameSpec
from harness.frames.writer import write_video

__all__ = [
    "DecodedClip",
    "FrameCache",
    "FrameSpec",
    "MediaError",
    "VIDEO_SUFFIXES",
    "VideoInfo",
    "decoder_identity",
    "decoder_version_for",
    "decoder_versions",
    "frame_cache_key",
    "load_clip",
    "probe_video",
    "sample_indices",
    "target_size",
    "write_video",
]
