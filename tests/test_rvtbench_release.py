"""The RVTBench release loader (JSON list / dict by id / JSONL / parquet; RLE, polygon and PNG masks;
[x, y, w, h] boxes; size from the video; unknown fields refused by name) and frame-folder videos (DAVIS)
through the core and `rvtbench_seg`, on a DAVIS-style copy of a build made by the project's builder."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from conftest import run_in
from harness.api import DataError, DroppedRow, VideoRef, media_identity
from harness.frames import FrameSpec, load_clip, probe_video
from harness.frames.cache import FrameCache
from harness_metrics import decode_rle
from harness_tasks.rvtbench.loader import load_samples


@pytest.fixture(scope="module")
def build(rvtbench_demo) -> Path:
    """The builder's demo set (shared by the session)."""
    return rvtbench_demo


def _rows(build: Path) -> list[dict]:
    return [json.loads(line) for line in (build / "test.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def davis(build, tmp_path_factory) -> tuple[Path, dict]:
    """A DAVIS-style release: JPEGImages/480p/<seq>/00000.jpg frames, Annotations/<seq>/NNNNN.png masks."""
    row = next(r for r in _rows(build) if r["task_type"] == "segmentation")
    root = tmp_path_factory.mktemp("davis")
    seq = root / "JPEGImages" / "480p" / "seq"
    ann = root / "Annotations" / "seq"
    seq.mkdir(parents=True)
    ann.mkdir(parents=True)
    clip = load_clip(VideoRef(path=str(build / row["video"])), FrameSpec(strategy="all"))
    for t, frame in enumerate(clip.frames):
        cv2.imwrite(
            str(seq / f"{t:05d}.jpg"), cv2.cvtColor(frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 98]
        )
    masks = {}
    for t, rle in zip(row["answer"]["frames"], row["answer"]["masks"], strict=True):
        cv2.imwrite(str(ann / f"{t:05d}.png"), decode_rle(rle)[0].astype(np.uint8) * 255)
        masks[str(t)] = f"Annotations/seq/{t:05d}.png"
    record = {
        "id": "davis_seq_0",
        "video": "JPEGImages/480p/seq",
        "type": "segmentation",
        "question": row["query"],
        "category": "+".join(row["categories"]),
        "level": f"L{row['level']}",
        "fps": row["fps"],
        "ground_truth": {"masks": masks},
    }
    (root / "samples.json").write_text(json.dumps([record]))
    return root, row


def test_frame_folder_is_a_video_in_the_core(davis, build, tmp_path):
    root, row = davis
    folder = root / "JPEGImages" / "480p" / "seq"
    info = probe_video(folder, fps=row["fps"])
    mp4 = probe_video(build / row["video"])
    assert (info.num_frames, info.width, info.height, info.fps) == (
        mp4.num_frames,
        mp4.width,
        mp4.height,
        mp4.fps,
    )
    assert probe_video(folder).fps == 24.0  # no rate in the row: the DAVIS default
    spec = FrameSpec(strategy="uniform", count=6)
    cache = FrameCache(tmp_path / "frames")
    ref = VideoRef(path=str(folder), fps=row["fps"])
    first = load_clip(ref, spec, cache)
    again = load_clip(ref, spec, cache)
    video = load_clip(VideoRef(path=str(build / row["video"])), spec)
    assert not first.from_cache and again.from_cache and first.indices == video.indices
    assert first.decoder.startswith("frame-folder") and first.fps == row["fps"]
    # JPEG at quality 98: the same pictures as the MP4 frames they were written from.
    assert np.abs(first.frames.astype(int) - video.frames.astype(int)).mean() < 3.0
    ident = media_identity(folder)
    (folder / "00000.jpg").write_bytes((folder / "00001.jpg").read_bytes())  # a replaced frame
    assert media_identity(folder) != ident


def test_davis_frame_folder_runs_through_rvtbench_seg(davis, tmp_path):

    root, row = davis
    docs = load_samples(root, "test", {"task_type": "segmentation"})
    assert docs[0]["width"] == row["width"] and docs[0]["answer"]["frames"] == row["answer"]["frames"]
    assert [decode_rle(m)[0].sum() for m in docs[0]["answer"]["masks"]] == [
        decode_rle(m)[0].sum() for m in row["answer"]["masks"]
    ]
    out = run_in(tmp_path, ["rvtbench_seg"], "oracle", str(root))
    res = out.results["task_results"]["rvtbench_seg"]
    assert res["n_samples"] == 1 and res["metrics"]["J&F"]["value"] == 1.0
    sample = json.loads(out.samples_paths["rvtbench_seg"].read_text().splitlines()[0])
    (media,) = sample["media"]  # the oracle declares a one-frame budget
    assert media["path"] == "JPEGImages/480p/seq" and media["fps"] == row["fps"] and media["indices"] == [0]


def _seg_record(**extra) -> dict:
    rec = {"video": "clip", "task_type": "segmentation", "query": "q", "categories": ["spatial"], "level": 2}
    rec.update(extra)
    return rec


def test_release_layouts_and_mask_forms(tmp_path, davis):
    folder_root, _ = davis
    rle = {"size": [4, 6], "counts": [2, 3, 19]}
    poly = [[1, 1, 4, 1, 4, 3, 1, 3]]  # a rectangle x 1..4, y 1..3
    cv2.imwrite(str(tmp_path / "m.png"), np.pad(np.ones((2, 2), np.uint8) * 7, ((1, 1), (2, 2))))
    (tmp_path / "list.json").write_text(
        json.dumps([_seg_record(id="a", width=6, height=4, answer={"0": rle, "2": poly, "5": "m.png"})])
    )
    by_id = {"b": {**_seg_record(width=6, height=4), "answer": {"frames": [1], "masks": [rle]}}}
    (tmp_path / "by_id.json").write_text(json.dumps(by_id))
    grounding = {
        "id": "c",
        "video": "clip",
        "type": "ground",
        "question": "where",
        "category": "temporal",
        "level": "L3",
        "width": 6,
        "height": 4,
        "gt": {"0": [1, 1, 2, 2], "3": [[0, 0, 1, 1], [2, 2, 1, 1]]},
    }
    (tmp_path / "more.jsonl").write_text(json.dumps(grounding) + "\n\n")
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(
        pa.Table.from_pylist(
            [
                {
                    "id": "d",
                    "video": "clip",
                    "task": "qa",
                    "query": "how many?",
                    "categories": "semantic,spatial",
                    "level": 1,
                    "answer": "two",
                }
            ]
        ),
        tmp_path / "qa.parquet",
    )
    rows = {r["id"]: r for r in load_samples(tmp_path, "test", {})}
    assert sorted(rows) == ["a", "b", "c", "d"]
    masks = [decode_rle(m)[0] for m in rows["a"]["answer"]["masks"]]
    assert rows["a"]["answer"]["frames"] == [0, 2, 5] and [m.sum() for m in masks] == [3, 6, 4]
    assert masks[1][1:3, 1:4].all() and masks[2][1:3, 2:4].all()
    assert rows["b"]["answer"]["masks"][0]["size"] == [4, 6]
    assert rows["c"]["answer"]["boxes"] == [[[1, 1, 2, 2]], [[0, 0, 1, 1], [2, 2, 1, 1]]]
    assert rows["c"]["task_type"] == "grounding" and rows["d"]["categories"] == ["semantic", "spatial"]
    # width/height absent: probed from the video, here a DAVIS frame folder.
    rec = {
        "id": "e",
        "video": "JPEGImages/480p/seq",
        "task_type": "grounding",
        "query": "q",
        "category": "semantic",
        "level": 1,
        "answer": {"0": [0, 0, 3, 3]},
    }
    (folder_root / "extra.jsonl").write_text(json.dumps(rec))
    try:
        row = next(r for r in load_samples(folder_root, "test", {}) if r["id"] == "e")
    finally:
        (folder_root / "extra.jsonl").unlink()
    assert (row["width"], row["height"]) == (
        probe_video(folder_root / "JPEGImages/480p/seq").width,
        probe_video(folder_root / "JPEGImages/480p/seq").height,
    )


def test_unexpected_field_and_bad_boxes_are_named(tmp_path):
    (tmp_path / "s.json").write_text(
        json.dumps([_seg_record(answer={"0": [[0, 0, 1, 0, 1, 1]]}, colour="red")])
    )
    with pytest.raises(DataError, match=r"s.json\[0\]: unexpected field 'colour'.*IGNORED_FIELDS"):
        load_samples(tmp_path, "test", {})
    rec = {
        "video": "v",
        "task_type": "grounding",
        "query": "q",
        "categories": ["spatial"],
        "level": 2,
        "width": 5,
        "height": 5,
        "answer": {"0": [0, 0, -1, 2]},
    }
    (tmp_path / "s.json").write_text(json.dumps({"data": [rec, {**rec, "answer": {"0": [0, 0, 1, 2]}}]}))
    bad, good = load_samples(tmp_path, "test", {})  # one bad record is a counted drop, the rest loads
    assert isinstance(bad, DroppedRow) and bad.reason == "bad_target"
    assert "s.json[0]" in bad.detail and "expected [x, y, w, h]" in bad.detail
    assert good["answer"]["boxes"] == [[[0, 0, 1, 2]]]
