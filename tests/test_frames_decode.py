"""Decoding: which frames come back (markers), virtual clips, decord/PyAV agreement, scaling, bad media."""

from __future__ import annotations

import numpy as np
import pytest
from pyav_compat import remux, set_display_rotation

from harness.data.media import Segment, VideoRef
from harness.frames import FrameSpec, MediaError, load_clip, probe_video
from harness.frames.loader import choose_engine
from harness.frames.probe import index_video
from harness.frames.pyav_decoder import plan_runs
from harness.frames.synthetic import read_marker, write_marker_video

N = 90
GOP = {"x264-params": "keyint=10:min-keyint=10:scenecut=0"}


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    """Marked test videos: default GOP (one keyframe), short GOP (keyframe every 10), tiny 64x48."""
    d = tmp_path_factory.mktemp("frames_videos")
    return {
        "plain": write_marker_video(d / "plain.mp4", N, 160, 90, fps=25),
        "gop": write_marker_video(d / "gop.mp4", N, 160, 90, fps=25, options=GOP),
        "tiny": write_marker_video(d / "tiny.mp4", 48, 64, 48, fps=16),
    }


def markers(clip) -> list[int]:
    return [read_marker(f) for f in clip.frames]


def test_probe_reports_frames_rate_size_codec(videos):
    info = probe_video(videos["plain"])
    assert (info.num_frames, info.fps, info.width, info.height, info.codec) == (N, 25.0, 160, 90, "h264")
    assert info.duration == pytest.approx(N / 25)
    assert index_video(videos["gop"]).keyframes == tuple(range(0, N, 10))


@pytest.mark.parametrize("decoder", ["pyav", "decord"])
@pytest.mark.parametrize("kind", ["plain", "gop"])
def test_decoded_frames_are_the_sampled_ones(videos, decoder, kind):
    spec = FrameSpec(strategy="segment", count=16, trim=1, decoder=decoder)
    clip = load_clip(VideoRef(path=videos[kind]), spec)
    expected = [1 + int((i + 0.5) * (N - 2) / 16) for i in range(16)]
    assert clip.indices == expected
    assert markers(clip) == expected
    assert clip.frames.shape == (16, 90, 160, 3) and clip.frames.dtype == np.uint8
    assert clip.timestamps == pytest.approx([i / 25 for i in expected])
    assert clip.decoder.startswith(decoder + "-")
    assert clip.source_size == (160, 90) and not clip.from_cache


@pytest.mark.parametrize("decoder", ["pyav", "decord"])
def test_virtual_clips_reverse_repeat_reorder(videos, decoder):
    path = videos["gop"]
    ref = VideoRef(
        path=path,
        segments=(
            Segment(start=60, end=64),  # 60..63
            Segment(start=10, end=13, reverse=True),  # 12, 11, 10
            Segment(start=40, end=42, repeat=2),  # 40, 41, 40, 41
        ),
    )
    clip = load_clip(ref, FrameSpec(strategy="all", decoder=decoder))
    expected = [60, 61, 62, 63, 12, 11, 10, 40, 41, 40, 41]
    assert clip.indices == expected
    assert markers(clip) == expected
    # timestamps are positions in the presented clip, so a reversed clip does not give itself away
    assert clip.timestamps == pytest.approx([p / 25 for p in range(len(expected))])


def test_virtual_clip_in_seconds_and_sampled(videos):
    ref = VideoRef(path=videos["plain"], segments=(Segment(start=1.0, end=2.0, unit="second", reverse=True),))
    clip = load_clip(ref, FrameSpec(strategy="uniform", count=3))
    assert clip.indices == [49, 37, 25]
    assert markers(clip) == [49, 37, 25]


@pytest.mark.parametrize("kind", ["plain", "gop", "tiny"])
@pytest.mark.parametrize("max_side", [None, 40, 21])
def test_decord_and_pyav_agree_bit_for_bit(videos, kind, max_side):
    ref = VideoRef(path=videos[kind])
    for spec_kw in ({"strategy": "uniform", "count": 7}, {"strategy": "all"}):
        a = load_clip(ref, FrameSpec(**spec_kw, max_side=max_side, decoder="pyav"))
        b = load_clip(ref, FrameSpec(**spec_kw, max_side=max_side, decoder="decord"))
        assert a.indices == b.indices
        assert a.frames.shape == b.frames.shape
        assert np.array_equal(a.frames, b.frames)


def test_auto_decoder_agrees_and_records_the_decoder_used(videos):
    ref = VideoRef(path=videos["gop"])
    auto = load_clip(ref, FrameSpec(strategy="uniform", count=5, max_side=64))
    pyav = load_clip(ref, FrameSpec(strategy="uniform", count=5, max_side=64, decoder="pyav"))
    assert np.array_equal(auto.frames, pyav.frames)
    assert auto.decoder.split("-")[0] in ("pyav", "decord")
    assert choose_engine(FrameSpec(strategy="all", decoder="decord"), index_video(videos["gop"])) == "decord"


def test_auto_falls_back_to_pyav_when_decord_fails(videos, monkeypatch):
    import harness.frames.loader as loader

    def broken(path, *args, **kwargs):
        raise MediaError(path, "decoder_failed", "decord: simulated failure")

    monkeypatch.setattr(loader, "decode_decord", broken)
    monkeypatch.setattr(
        loader, "choose_engine", lambda spec, index: "decord" if spec.decoder != "pyav" else "pyav"
    )
    clip = load_clip(VideoRef(path=videos["plain"]), FrameSpec(strategy="uniform", count=4))
    assert clip.decoder.startswith("pyav-")
    assert markers(clip) == clip.indices == [0, 30, 59, 89]
    with pytest.raises(MediaError, match="simulated"):
        load_clip(VideoRef(path=videos["plain"]), FrameSpec(strategy="uniform", count=4, decoder="decord"))


@pytest.mark.parametrize("decoder", ["pyav", "decord"])
def test_max_side_and_max_height_scale_in_the_decoder(videos, decoder):
    ref = VideoRef(path=videos["plain"])
    clip = load_clip(ref, FrameSpec(strategy="uniform", count=4, max_side=64, decoder=decoder))
    assert clip.frames.shape == (4, 36, 64, 3)
    assert markers(clip) == clip.indices
    clip = load_clip(ref, FrameSpec(strategy="uniform", count=4, max_height=45, decoder=decoder))
    assert clip.frames.shape == (4, 45, 80, 3)
    big = load_clip(ref, FrameSpec(strategy="uniform", count=2, max_side=4000, decoder=decoder))
    assert big.frames.shape == (2, 90, 160, 3)  # never upscaled


def test_plan_seeks_only_past_keyframes():
    keys = [0, 10, 20, 30]
    assert plan_runs([1, 5, 9], keys) == [(None, [1, 5, 9])]
    assert plan_runs([1, 25, 27, 31], keys) == [(None, [1]), (20, [25, 27]), (30, [31])]
    # the next wanted frame's keyframe is not ahead of the position: keep decoding forward
    assert plan_runs([8, 12], keys) == [(None, [8]), (10, [12])]
    assert plan_runs([11, 12], keys) == [(10, [11, 12])]


def test_sparse_sampling_of_a_short_gop_video_seeks_and_stays_exact(videos):
    spec = FrameSpec(strategy="uniform", count=6, decoder="pyav")
    clip = load_clip(VideoRef(path=videos["gop"]), spec)
    assert markers(clip) == clip.indices == [0, 18, 36, 53, 71, 89]


# bad media ---------------------------------------------------------------------------------------


def _assert_media_error(path, reason, decoder="auto"):
    with pytest.raises(MediaError) as err:
        load_clip(VideoRef(path=str(path)), FrameSpec(strategy="uniform", count=4, decoder=decoder))
    assert err.value.reason == reason
    assert err.value.path == str(path)
    assert str(path) in str(err.value) and reason in str(err.value)


def test_missing_file(tmp_path):
    _assert_media_error(tmp_path / "nope.mp4", "missing")
    with pytest.raises(MediaError, match="missing"):
        probe_video(tmp_path / "nope.mp4")


def test_zero_byte_file(tmp_path):
    p = tmp_path / "empty.mp4"
    p.write_bytes(b"")
    _assert_media_error(p, "empty")


def test_text_file_named_mp4(tmp_path):
    p = tmp_path / "notes.mp4"
    p.write_text("this is not a video\n" * 20)
    _assert_media_error(p, "corrupt")


def test_truncated_file(tmp_path, videos):
    data = open(videos["plain"], "rb").read()
    p = tmp_path / "cut.mp4"
    p.write_bytes(data[: len(data) // 2])
    _assert_media_error(p, "truncated")


def test_truncated_mdat_with_index_in_front(tmp_path):
    """A faststart MP4 (index first) cut short: opens, but the frames after the cut are gone."""
    src = write_marker_video(tmp_path / "src.mp4", 40, 64, 48)
    fast = remux(src, tmp_path / "fast.mp4", options={"movflags": "faststart"})
    data = fast.read_bytes()
    cut = tmp_path / "fastcut.mp4"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    for decoder in ("pyav", "decord"):
        with pytest.raises(MediaError) as err:
            load_clip(VideoRef(path=str(cut)), FrameSpec(strategy="all", decoder=decoder))
        assert err.value.path == str(cut)
        assert err.value.reason in ("truncated", "corrupt", "decoder_failed")


def test_unsupported_codec(tmp_path, videos):
    data = open(videos["tiny"], "rb").read()
    at = data.find(b"avc1", data.find(b"stsd"))
    p = tmp_path / "weird.mp4"
    p.write_bytes(data[:at] + b"zzzz" + data[at + 4 :])
    _assert_media_error(p, "unsupported_codec")


def test_segments_outside_the_video(videos):
    ref = VideoRef(path=videos["tiny"], segments=(Segment(start=500, end=600),))
    with pytest.raises(MediaError) as err:
        load_clip(ref, FrameSpec(strategy="all"))
    assert err.value.reason == "empty_clip"


def test_without_decord_auto_uses_pyav_and_explicit_decord_says_how_to_fix(videos, monkeypatch):
    import sys

    import harness.frames.loader as loader

    monkeypatch.setitem(sys.modules, "decord", None)  # import decord now fails
    loader._installed_versions.cache_clear()
    try:
        assert "decord" not in loader.decoder_versions()
        clip = load_clip(VideoRef(path=videos["tiny"]), FrameSpec(strategy="uniform", count=3))
        assert clip.decoder.startswith("pyav-") and markers(clip) == clip.indices
        with pytest.raises(RuntimeError, match="pip install decord"):
            load_clip(VideoRef(path=videos["tiny"]), FrameSpec(strategy="uniform", count=3, decoder="decord"))
    finally:
        monkeypatch.undo()
        loader._installed_versions.cache_clear()


def test_agreement_holds_with_threaded_scaling_on_larger_frames(tmp_path):
    """Frames of 640x360 and up are scaled with several swscale threads; still bit-identical to decord."""
    from harness.frames.scaling import scale_threads

    path = write_marker_video(tmp_path / "wide.mp4", 12, 640, 360, fps=24)
    ref = VideoRef(path=path)
    a = load_clip(ref, FrameSpec(strategy="all", max_side=200, decoder="pyav"))
    b = load_clip(ref, FrameSpec(strategy="all", max_side=200, decoder="decord"))
    assert a.frames.shape == (12, 113, 200, 3)
    assert np.array_equal(a.frames, b.frames)
    assert [read_marker(f) for f in a.frames] == list(range(12))
    assert scale_threads(640, 360) >= min(2, __import__("os").cpu_count() or 1)


@pytest.mark.parametrize("ccw", [90, 180, 270])
def test_display_rotation_is_applied(tmp_path, videos, ccw):
    """A video stored with a display matrix comes out as players show it (FFmpeg's autorotate)."""
    rotated = remux(videos["tiny"], tmp_path / f"rot{ccw}.mp4")
    set_display_rotation(rotated, ccw)  # counter-clockwise, as PyAV reads it back
    info = probe_video(rotated)
    turn = (360 - ccw) % 360  # clockwise degrees applied when decoding
    assert info.rotation == turn
    assert (info.width, info.height) == ((48, 64) if ccw in (90, 270) else (64, 48))
    plain = load_clip(VideoRef(path=videos["tiny"]), FrameSpec(strategy="uniform", count=5, decoder="pyav"))
    clip = load_clip(VideoRef(path=str(rotated)), FrameSpec(strategy="uniform", count=5, max_side=32))
    assert clip.frames.shape == ((5, 32, 24, 3) if ccw in (90, 270) else (5, 24, 32, 3))
    assert clip.decoder.startswith("pyav-") and clip.source_size == (info.width, info.height)
    # undo the clockwise turn: the stored picture, with its markers, is back
    upright = [np.rot90(f, k=turn // 90) for f in clip.frames]
    assert [read_marker(f) for f in upright] == clip.indices == plain.indices
    native = load_clip(VideoRef(path=str(rotated)), FrameSpec(strategy="uniform", count=5, decoder="pyav"))
    assert np.array_equal(np.stack([np.rot90(f, k=turn // 90) for f in native.frames]), plain.frames)
    with pytest.raises(MediaError) as err:
        load_clip(VideoRef(path=str(rotated)), FrameSpec(strategy="uniform", count=5, decoder="decord"))
    assert err.value.reason == "decoder_failed" and "rotated" in str(err.value)


def _avcc(*nals: bytes) -> bytes:
    return b"".join(len(n).to_bytes(4, "big") + n for n in nals)


def test_non_reference_detection_reads_nal_ref_idc():
    from harness.frames.pyav_decoder import is_non_reference_h264

    assert is_non_reference_h264(_avcc(b"\x01\xaa\xbb"), 4)  # P/B slice, nal_ref_idc 0
    assert is_non_reference_h264(_avcc(b"\x06\x05", b"\x01\xaa"), 4)  # SEI + non-reference slice
    assert not is_non_reference_h264(_avcc(b"\x21\xaa"), 4)  # slice with nal_ref_idc 1
    assert not is_non_reference_h264(_avcc(b"\x65\x88"), 4)  # IDR
    assert not is_non_reference_h264(_avcc(b"\x06\x05"), 4)  # no slice at all
    assert not is_non_reference_h264(_avcc(b"\x01\xaa")[:-1], 4)  # malformed: keep it


def test_counting_mode_without_a_timestamp_index_gives_the_same_frames(videos):
    """Streams whose timestamps do not index frames uniquely are decoded by counting output frames."""
    import dataclasses

    from harness.frames.pyav_decoder import decode_pyav

    index = index_video(videos["gop"])
    wanted = [0, 7, 33, 34, 89]
    by_pts = decode_pyav(videos["gop"], index, wanted, (160, 90))
    counted = decode_pyav(videos["gop"], dataclasses.replace(index, pts_to_index={}), wanted, (160, 90))
    assert np.array_equal(by_pts, counted)
    assert [read_marker(f) for f in counted] == wanted
