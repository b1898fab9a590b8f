"""TempCloze builder end to end on synthetic moving-pattern videos: filters and bad input, the release
layout, files vs virtual clips, Mixed, determinism, the model filter, demo and commands."""

from __future__ import annotations

import argparse
import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from harness.contract.messages import Response
from harness.contract.model import Model
from harness.data.media import VideoRef
from harness.frames.spec import FrameSpec
from harness_builders.tempcloze.config import BuildConfig
from harness_builders.tempcloze.intervals import Piece, plan_indices
from harness_builders.tempcloze.layout import ALL_CLIPS, DIMENSIONS, clip_file
from harness_builders.tempcloze.mixed import select_mixed
from harness_builders.tempcloze.pipeline import NoUsableVideos, build_dataset
from harness_builders.tempcloze.synthetic import make_source_folder, write_pattern_video
from harness_builders.tempcloze.virtual import load_item_document, virtual_refs

ALL = FrameSpec(strategy="all")


def _load(ref: VideoRef) -> np.ndarray:
    from harness.frames import load_clip

    return load_clip(ref, ALL).frames.astype(np.int16)


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("tc_src")
    make_source_folder(src, count=4, seconds=6.0, fps=10.0, seed=1)
    write_pattern_video(src / "still.mp4", 6.0, 10.0, static=True)
    write_pattern_video(src / "short.mp4", 1.5, 10.0)
    (src / "broken.mp4").write_bytes(b"this is not a video")
    return src


@pytest.fixture(scope="module")
def virtual_set(sources, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tc_virtual")
    build_dataset(sources, out, BuildConfig(virtual=True, seed=3), progress=False, overwrite=True)
    return out


@pytest.fixture(scope="module")
def files_set(sources, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tc_files")
    build_dataset(sources, out, BuildConfig(virtual=False, seed=3), progress=False, overwrite=True)
    return out


def test_bad_input_is_skipped_with_counted_reasons(virtual_set):
    m = json.loads((virtual_set / "manifest.json").read_text())
    assert m["kept"] == 4 and m["videos_found"] == 7
    assert m["skipped"] == {"unreadable": 1, "too_short": 1, "no_motion": 1}
    assert m["filters"]["readable"] == {"pass": 6, "fail": 1}
    assert m["filters"]["duration"]["pass"] == 5 and m["filters"]["duration"]["fail"] == 1
    assert m["filters"]["motion"]["pass"] == 4 and m["filters"]["motion"]["fail"] == 1
    assert m["seed"] == 3 and m["parameters"]["min_motion"] == 1.0
    reasons = {f["stem"]: f["reason"] for f in m["failures"]}
    assert reasons == {"broken": "unreadable", "short": "too_short", "still": "no_motion"}
    assert len(m["measures"]["still"]["gap_motion_tries"]) == 3  # resampled three times, then dropped


def test_folder_without_usable_video_fails_with_counts(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.mp4").write_bytes(b"junk")
    write_pattern_video(src / "b.mp4", 1.0, 10.0)
    with pytest.raises(NoUsableVideos) as err:
        build_dataset(src, tmp_path / "out", BuildConfig(virtual=True), progress=False)
    assert "too_short: 1" in str(err.value) and "unreadable: 1" in str(err.value)
    assert err.value.counts == {"too_short": 1, "unreadable": 1}
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_files_mode_writes_the_release_layout(files_set):
    stems = sorted(p.name for p in (files_set / "choices").iterdir())
    assert stems == ["vid00", "vid01", "vid02", "vid03"]
    for stem in stems:
        for name in ALL_CLIPS:
            assert (files_set / "choices" / stem / clip_file(name)).is_file()
    mixed = json.loads((files_set / "mixed_ids.json").read_text())
    assert [r["stem"] for r in mixed] == stems
    for row in mixed:
        assert set(row) == {"stem", "S", "A", "P"}
        for dim in "SAP":
            assert (files_set / "choices" / row["stem"] / row[dim]).is_file()
            assert row[dim][: -len(".mp4")] in DIMENSIONS[dim]


def test_virtual_refs_follow_the_interval_plan(virtual_set):
    doc = load_item_document(virtual_set / "choices" / "vid01" / "clips.json")
    assert doc["mode"] == "virtual" and not (virtual_set / "choices" / "vid01" / "GT.mp4").exists()
    refs = virtual_refs(doc, virtual_set)
    assert set(refs) == set(ALL_CLIPS)
    n, fps = doc["num_frames"], doc["fps"]
    a, b = doc["gap"]["start"], doc["gap"]["end"]
    assert refs["GT"].source_indices(n, fps) == list(range(a, b))
    assert refs["C/Reverse"].source_indices(n, fps) == list(range(b - 1, a - 1, -1))
    loop = refs["C/Loop"].source_indices(n, fps)
    assert len(loop) % 3 == 0 and loop[: len(loop) // 3] * 3 == loop
    for name, ref in refs.items():
        pieces = tuple(Piece(int(s.start), int(s.end), s.reverse, s.repeat) for s in ref.segments)
        assert ref.source_indices(n, fps) == plan_indices(pieces), name
        assert (
            Path(ref.path).resolve()
            == (
                Path(doc["source"]) if Path(doc["source"]).is_absolute() else (virtual_set / doc["source"])
            ).resolve()
        )


def test_files_and_virtual_clips_give_the_same_frames(files_set):
    stem_dir = files_set / "choices" / "vid02"
    refs = virtual_refs(stem_dir / "clips.json", files_set)
    for name in ALL_CLIPS:
        from_file = _load(VideoRef(path=str(stem_dir / clip_file(name))))
        virtual = _load(refs[name])
        assert from_file.shape == virtual.shape, name
        err = np.abs(from_file - virtual).mean(axis=(1, 2, 3))
        assert err.max() < 12.0, (name, err.max())  # H.264 re-encoding noise only
        if len(virtual) > 2:  # and each frame is nearer its own source frame than its neighbours
            prev = np.abs(from_file[1:] - virtual[:-1]).mean(axis=(1, 2, 3))
            nxt = np.abs(from_file[:-1] - virtual[1:]).mean(axis=(1, 2, 3))
            assert (err[1:] < prev).all() and (err[:-1] < nxt).all(), name


def test_candidates_of_each_dimension_are_distinct(virtual_set):
    for item in sorted((virtual_set / "choices").iterdir()):
        doc = load_item_document(item / "clips.json")
        refs = virtual_refs(doc, virtual_set)
        for names in DIMENSIONS.values():
            seqs = {tuple(refs[c].source_indices(doc["num_frames"], doc["fps"])) for c in ("GT", *names)}
            assert len(seqs) == 4


def test_same_seed_same_dataset_other_seed_differs(sources, virtual_set, tmp_path):
    again = tmp_path / "again"
    build_dataset(sources, again, BuildConfig(virtual=True, seed=3, workers=2), progress=False)
    other = tmp_path / "other"
    build_dataset(sources, other, BuildConfig(virtual=True, seed=4), progress=False)

    def items(root):
        docs = {}
        for p in sorted((root / "choices").glob("*/clips.json")):
            d = json.loads(p.read_text())
            d.pop("source")
            docs[p.parent.name] = d
        return docs

    assert items(again) == items(virtual_set)
    assert (again / "mixed_ids.json").read_text() == (virtual_set / "mixed_ids.json").read_text()
    m1, m2 = (json.loads((r / "manifest.json").read_text()) for r in (virtual_set, again))
    for key in ("skipped", "filters", "items", "measures", "gap_attempts"):
        assert m1[key] == m2[key]
    gaps = lambda docs: {k: (v["gap"]["start"], v["gap"]["end"]) for k, v in docs.items()}  # noqa: E731
    assert gaps(items(other)) != gaps(items(virtual_set))


def test_release_semantic_rule_option(sources, tmp_path):
    build_dataset(sources, tmp_path, BuildConfig(virtual=True, semantic="release"), progress=False)
    for p in (tmp_path / "choices").glob("*/clips.json"):
        doc = json.loads(p.read_text())
        a, b, n = doc["gap"]["start"], doc["gap"]["end"], doc["num_frames"]
        for name in DIMENSIONS["S"]:
            (seg,) = doc["clips"][name]
            assert seg["end"] - seg["start"] >= int(np.ceil(0.2 * n))
            assert seg["end"] <= a or seg["start"] >= b


def test_mixed_is_balanced_and_seeded():
    stems = [f"video{i:03d}" for i in range(31)]
    rows = select_mixed(stems, seed=5, size=None)
    assert [r["stem"] for r in rows] == sorted(stems)
    for dim, names in DIMENSIONS.items():
        counts = Counter(r[dim] for r in rows)
        assert set(counts) == {clip_file(n) for n in names}
        assert max(counts.values()) - min(counts.values()) <= 1
    assert select_mixed(stems, seed=5, size=None) == rows
    assert select_mixed(stems, seed=6, size=None) != rows
    subset = select_mixed(stems, seed=5, size=10)
    assert len(subset) == 10 and set(r["stem"] for r in subset) <= set(stems)


def test_existing_output_needs_overwrite(sources, virtual_set):
    with pytest.raises(ValueError, match="--overwrite"):
        build_dataset(sources, virtual_set, BuildConfig(virtual=True, seed=3), progress=False)


class _Judge(Model):
    """A model that finds every video suitable except the ones named in `reject`."""

    name = "judge"

    def generate(self, requests):
        out = []
        for r in requests:
            assert r.videos()[0].frames is not None and r.videos()[0].frames.ndim == 4
            out.append(Response(text="No." if r.doc_id in self.model_args["reject"] else "Yes, it is."))
        return out


def test_model_suitability_filter(sources, tmp_path):
    m = build_dataset(
        sources, tmp_path, BuildConfig(virtual=True), model=_Judge(reject=["vid00"]), progress=False
    )
    assert m["filters"]["suitability"]["pass"] == 4 and m["filters"]["suitability"]["fail"] == 1
    assert m["skipped"]["unsuitable"] == 1 and "vid00" not in m["items"]


def test_build_command_and_demo(sources, tmp_path):
    from harness_builders.tempcloze.commands import TempClozeBuilder

    builder = TempClozeBuilder()
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    args = parser.parse_args(
        [
            "--videos",
            str(sources),
            "--out",
            str(tmp_path / "cli"),
            "--virtual",
            "--seed",
            "9",
            "--no_progress",
        ]
    )
    assert builder.run(args) == 0
    assert json.loads((tmp_path / "cli" / "manifest.json").read_text())["seed"] == 9
    (demo,) = builder.demo(tmp_path / "demo", seed=0)
    assert (
        demo.tasks == ["tempcloze", "tempcloze_mixed"]
        and len(list((demo.data_dir / "choices").glob("*/clips.json"))) == 4
    )


def test_plugin_registers_three_builders():
    from harness_builders.tempcloze import plugin

    seen = {}
    plugin.register_builders(lambda name, factory, description="": seen.setdefault(name, factory))
    assert set(seen) == {"tempcloze", "tempcloze-hard", "tempcloze.diagnose"}


def test_virtual_sources_live_inside_the_dataset_root(virtual_set, sources, tmp_path):
    # kept sources are linked into OUT/sources/, so a copy of the dataset root alone still plays
    doc = load_item_document(virtual_set / "choices" / "vid00" / "clips.json")
    assert doc["source"] == "sources/vid00.mp4"
    assert sorted(p.name for p in (virtual_set / "sources").iterdir()) == [f"vid0{i}.mp4" for i in range(4)]
    shutil.copytree(virtual_set, tmp_path / "copy")
    refs = virtual_refs(tmp_path / "copy" / "choices" / "vid00" / "clips.json", tmp_path / "copy")
    assert Path(refs["GT"].path).is_file() and str(tmp_path / "copy") in refs["GT"].path
    assert _load(refs["GT"]).shape[0] == doc["gap"]["end"] - doc["gap"]["start"]
    # --sources reference keeps the original file, named relative to the dataset root
    build_dataset(sources, tmp_path / "ref", BuildConfig(virtual=True, sources="reference"), progress=False)
    ref_doc = load_item_document(tmp_path / "ref" / "choices" / "vid00" / "clips.json")
    assert (tmp_path / "ref" / ref_doc["source"]).resolve() == (sources / "vid00.mp4").resolve()
    assert not (tmp_path / "ref" / "sources").exists()
