"""RVTBench through the evaluator with scripted models: shifted boxes score the hand-computed IoU, and
segmentation from boxes runs only through an explicit, recorded box-to-mask pipeline (issue 9)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from builds import build_with

from conftest import run_in
from harness_metrics import decode_rle

DX, DY = 3, 2


@pytest.fixture(scope="module")
def small_set(tmp_path_factory) -> Path:
    """Two CycliST L1 scenes (16 frames, 160x90) as an RVTBench set with every task type."""
    from harness_builders.cyclist.commands import CyclistBuilder
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    base = tmp_path_factory.mktemp("rvtsmall")
    build_with(
        CyclistBuilder(),
        ["--tier", "L1", "--num-scenes", "2", "--out", str(base / "cy"), "--size", "160x90"]
        + ["--frames", "16", "--seed", "1", "--no_progress"],
    )
    build_with(
        RvtbenchBuilder(),
        ["--from-synthetic", str(base / "cy"), "--out", str(base / "rvt"), "--assign", "all"]
        + ["--objects-per-video", "2", "--seed", "1", "--no_progress"],
    )
    return base / "rvt"


def _rows(data: Path, task_type: str) -> dict[str, dict]:
    rows = [json.loads(line) for line in (data / "test.jsonl").read_text().splitlines()]
    return {r["id"]: r for r in rows if r["task_type"] == task_type}


def _records(path: Path) -> dict[str, dict]:
    return {r["doc_id"]: r for r in map(json.loads, path.read_text().splitlines())}


def _fill(boxes: list[list[float]], height: int, width: int) -> np.ndarray:
    """Pixels (px, py) with x <= px < x + w and y <= py < y + h of any box (the hand rasterisation)."""
    ys, xs = np.indices((height, width))
    out = np.zeros((height, width), dtype=bool)
    for x, y, w, h in boxes:
        out |= (xs >= x) & (xs < x + w) & (ys >= y) & (ys < y + h)
    return out


def _shift(boxes: list[list[float]]) -> list[list[float]]:
    return [[x + DX, y + DY, w, h] for x, y, w, h in boxes]


def _run(data: Path, tmp_path: Path, tasks: list[str], **model_args):
    return run_in(tmp_path, tasks, "rvt_shifted_boxes", str(data), model_args=model_args, progress=False)


def test_shifted_boxes_through_the_evaluator_score_the_hand_computed_iou(small_set, scripted, tmp_path):
    out = _run(small_set, tmp_path, ["rvtbench_grounding"], dx=DX, dy=DY)
    res = out.results["task_results"]["rvtbench_grounding"]
    rows = _rows(small_set, "grounding")
    assert res["n_samples"] == len(rows) > 0 and res["n_invalid"] == res["n_errors"] == 0
    records = _records(out.samples_paths["rvtbench_grounding"])
    inter_sum = union_sum = 0
    per_query, per_frame = [], []
    analytic = 0
    for doc_id, row in rows.items():
        h, w = row["height"], row["width"]
        frame_ious = []
        for gt in row["answer"]["boxes"]:
            g, p = _fill(gt, h, w), _fill(_shift(gt), h, w)
            inter, union = np.count_nonzero(g & p), np.count_nonzero(g | p)
            inter_sum, union_sum = inter_sum + inter, union_sum + union
            frame_ious.append(inter / (union + 1e-5) + (union == 0))  # LISA: one frame is one image
        per_frame += frame_ious
        per_query.append(np.mean(frame_ious))
        assert records[doc_id]["scores"]["IoU"] == pytest.approx(np.mean(frame_ious), abs=1e-9)
        singles = [b[0] for b in row["answer"]["boxes"] if len(b) == 1]
        if len(singles) == len(row["answer"]["boxes"]) and all(
            x + bw + DX <= w and y + bh + DY <= h for x, y, bw, bh in singles
        ):  # one box per frame, inside the image after the shift: the overlap is (w - dx) x (h - dy)
            hand = [(bw - DX) * (bh - DY) / (2 * bw * bh - (bw - DX) * (bh - DY)) for _, _, bw, bh in singles]
            assert records[doc_id]["scores"]["IoU"] == pytest.approx(np.mean(hand), rel=1e-5)
            analytic += 1
    assert analytic > 0
    overall = res["tables"]["by_category_level"]["overall"]
    assert overall["cIoU"] == pytest.approx(inter_sum / union_sum, abs=1e-6)
    assert overall["gIoU"] == pytest.approx(np.mean(per_frame), abs=1e-6)  # per image (frame), not per query
    assert res["metrics"]["IoU"]["value"] == pytest.approx(np.mean(per_query), abs=1e-6)
    assert overall["AP@50"] < 1.0


def test_segmentation_from_boxes_needs_the_explicit_pipeline_and_records_it(
    small_set, scripted, tmp_path, monkeypatch
):
    monkeypatch.setenv("HARNESS_RVTBENCH_BOX_TO_MASK", "fill")
    out = _run(small_set, tmp_path, ["rvtbench_seg", "rvtbench_seg_boxes"], dx=DX, dy=DY)
    results = out.results["task_results"]
    label = "rvtbench.box_to_mask.fill(model=default)"
    plain = results["rvtbench_seg"]["tables"]["by_category_level"]["overall"]
    # A text model's boxes are no masks: invalid answers, J&F 0 inside the mean (not left out as before).
    assert plain["n_invalid"] == plain["n_samples"] > 0 and plain["J&F"] == 0.0
    assert plain["mask_sources"] == {"none (invalid answer)": plain["n_samples"]}
    seg = results["rvtbench_seg"]
    assert seg["n_invalid"] == seg["n_samples"] and seg["metrics"]["J&F"]["value"] == 0.0
    assert seg["metrics"]["J&F"]["n"] == seg["n_samples"]
    boxes = results["rvtbench_seg_boxes"]
    table = boxes["tables"]["by_category_level"]["overall"]
    assert table["n_invalid"] == 0 and table["mask_sources"] == {label: boxes["n_samples"]}
    rows = _rows(small_set, "segmentation")
    records = _records(out.samples_paths["rvtbench_seg_boxes"])
    assert set(records) == set(rows)
    for doc_id, row in rows.items():
        rec = records[doc_id]
        assert rec["doc"]["mask_pipeline"]["box_to_mask"] == "rvtbench.box_to_mask.fill"
        assert rec["parsed"]["extra"]["mask_source"] == label
        ious = []
        for rle in row["answer"]["masks"]:  # the model boxes each mask, shifted; fill makes the box the mask
            gt = decode_rle(rle)[0]
            ys, xs = np.nonzero(gt)
            box = [[xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1]] if gt.any() else []
            pred = _fill(_shift(box), *gt.shape)
            union = np.count_nonzero(gt | pred)
            ious.append(np.count_nonzero(gt & pred) / union if union else 1.0)
        assert rec["scores"]["J"] == pytest.approx(np.mean(ious))


def test_rejected_boxes_on_the_box_pipeline_are_invalid_and_scored_as_empty(small_set, scripted, monkeypatch):
    from harness.api import Response
    from harness_tasks.rvtbench.mask_pipeline import configured_pipeline, parse
    from harness_tasks.rvtbench.scoring import score

    monkeypatch.setenv("HARNESS_RVTBENCH_BOX_TO_MASK", "fill")
    row = next(iter(_rows(small_set, "segmentation").values()))
    doc = {**row, "mask_pipeline": configured_pipeline({}), "data_root": str(small_set)}
    bad = parse(Response(text=json.dumps({"boxes": [{"frame": 0, "box": [1, 1, 3, 3]}]})), doc)
    assert (
        not bad.valid and bad.note.startswith("rejected boxes") and score(bad, row["answer"], doc)["J"] == 0.0
    )
    nothing = parse(Response(text=json.dumps({"boxes": []})), doc)  # no box at all: nothing to make masks of
    assert not nothing.valid and nothing.note == "no boxes in any frame"
    assert score(nothing, row["answer"], doc) == {"J": 0.0, "F": 0.0, "J&F": 0.0}
    native = parse(Response(text="", structured={"masks": row["answer"]["masks"]}), doc)
    assert native.extra["mask_source"] == "model" and score(native, row["answer"], doc)["J&F"] == 1.0


def test_an_unknown_box_to_mask_part_names_the_setting_and_the_registered_ones(scripted, monkeypatch):
    from harness.api import DataError
    from harness_tasks.rvtbench.mask_pipeline import configured_pipeline

    monkeypatch.delenv("HARNESS_RVTBENCH_BOX_TO_MASK", raising=False)
    with pytest.raises(DataError, match=r"box_to_mask 'nope'.*rvtbench\.box_to_mask\.fill.*sam2"):
        configured_pipeline({"box_to_mask": "nope"})
    with pytest.raises(DataError, match="HARNESS_RVTBENCH_BOX_TO_MASK"):
        configured_pipeline({})
