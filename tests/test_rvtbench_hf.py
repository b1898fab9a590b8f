"""RVTBench perception stages on tiny random SAM 2 / Depth Anything models built from configs (offline)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.hf
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _tiny_sam2_parts(s: int) -> dict:
    """The parts the tiny SAM 2 models share for s x s images: a 4-stage Hiera vision tower of 16-128 channels,
    the prompt encoder and the mask decoder."""
    from transformers.models.sam2.configuration_sam2 import Sam2HieraDetConfig, Sam2VisionConfig

    backbone = Sam2HieraDetConfig(
        hidden_size=16,
        num_attention_heads=1,
        image_size=[s, s],
        blocks_per_stage=[1, 1, 2, 1],
        embed_dim_per_stage=[16, 32, 64, 128],
        num_attention_heads_per_stage=[1, 1, 1, 1],
        window_size_per_stage=[4, 4, 4, 4],
        global_attention_blocks=[3],
        window_positional_embedding_background_size=[4, 4],
    )
    vision = Sam2VisionConfig(
        backbone_config=backbone,
        backbone_channel_list=[128, 64, 32, 16],
        backbone_feature_sizes=[[s // 4, s // 4], [s // 8, s // 8], [s // 16, s // 16]],
        fpn_hidden_size=128,
    )
    decoder = {"hidden_size": 128, "mlp_dim": 64, "num_hidden_layers": 2, "iou_head_hidden_dim": 32}
    prompts = {"hidden_size": 128, "image_size": s, "patch_size": 16}
    return {"vision_config": vision, "prompt_encoder_config": prompts, "mask_decoder_config": decoder}


def _tiny_sam2(folder: Path, s: int = 64) -> Path:
    from transformers import (
        Sam2ImageProcessor,
        Sam2VideoConfig,
        Sam2VideoModel,
        Sam2VideoProcessor,
        Sam2VideoVideoProcessor,
    )

    # memory_encoder_output_channels must be 64 (the memory cross-attention's key width is fixed in transformers)
    config = Sam2VideoConfig(
        **_tiny_sam2_parts(s),
        image_size=s,
        memory_attention_hidden_size=128,
        memory_attention_num_layers=1,
        memory_attention_feed_forward_hidden_size=64,
        memory_attention_rope_feat_sizes=[s // 16, s // 16],
        memory_encoder_hidden_size=128,
        memory_encoder_output_channels=64,
        mask_downsampler_embed_dim=128,
        memory_fuser_embed_dim=128,
        memory_fuser_intermediate_dim=64,
    )
    torch.manual_seed(0)
    Sam2VideoModel(config).save_pretrained(folder)
    size = {"height": s, "width": s}
    Sam2VideoProcessor(
        image_processor=Sam2ImageProcessor(size=size), video_processor=Sam2VideoVideoProcessor(size=size)
    ).save_pretrained(folder)
    return folder


def _tiny_depth_anything(folder: Path) -> Path:
    from transformers import (
        DepthAnythingConfig,
        DepthAnythingForDepthEstimation,
        Dinov2Config,
        DPTImageProcessor,
    )

    backbone = Dinov2Config(
        hidden_size=32,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=64,
        image_size=56,
        patch_size=14,
        out_features=["stage1", "stage2", "stage3", "stage4"],
        reshape_hidden_states=False,
    )
    config = DepthAnythingConfig(
        backbone_config=backbone,
        neck_hidden_sizes=[16, 16, 16, 16],
        fusion_hidden_size=16,
        head_hidden_size=8,
        reassemble_hidden_size=32,
        patch_size=14,
    )
    torch.manual_seed(0)
    DepthAnythingForDepthEstimation(config).save_pretrained(folder)
    DPTImageProcessor(
        size={"height": 56, "width": 56}, keep_aspect_ratio=False, ensure_multiple_of=14
    ).save_pretrained(folder)
    return folder


def _frames() -> np.ndarray:
    video = np.full((3, 48, 64, 3), 40, dtype=np.uint8)
    for t in range(3):
        video[t, 10:30, 8 + 4 * t : 28 + 4 * t] = (220, 40, 40)
        video[t, 20:44, 40:60] = (40, 60, 220)
    return video


def test_depth_anything_stage_on_a_tiny_model(tmp_path):
    from harness_builders.rvtbench.parts import load_part

    depth = load_part("depth", "depth_anything", model=str(_tiny_depth_anything(tmp_path / "da")))
    out = depth.depth(_frames())
    assert out.shape == (3, 48, 64) and np.isfinite(out).all()


def test_sam2_segmenter_and_perception_dt_on_tiny_models(tmp_path):
    from harness_builders.rvtbench.describers import OpenCVDescriber
    from harness_builders.rvtbench.dt import validate_dt
    from harness_builders.rvtbench.parts import load_part
    from harness_builders.rvtbench.perception import perception_dt

    seg = load_part(
        "segmenter", "sam2", model=str(_tiny_sam2(tmp_path / "sam2")), grid=2, min_area=0.0, max_instances=4
    )
    depth = load_part("depth", "depth_anything", model=str(_tiny_depth_anything(tmp_path / "da")))
    frames = _frames()
    tracks, scores = seg.segment(frames, keyframe_interval=2)
    assert all(m.shape == (3, 48, 64) and m.dtype == bool for m in tracks.values())
    assert set(scores) == set(tracks)
    # instances found on key frame 0 and carried to frame 1 by tracking (several objects added in one session)
    on_first = [m for m in tracks.values() if m[0].any()]
    assert len(on_first) >= 2 and all(m[1].any() for m in on_first)
    dt = perception_dt(frames, 10.0, "videos/x.mp4", seg, depth, OpenCVDescriber(), 2, {"segmenter": "sam2"})
    validate_dt(dt)
    assert dt["metadata"]["source"] == "perception" and len(dt["frames"]) == 3


def _tiny_sam2_image(folder: Path) -> Path:
    """A tiny random SAM 2 image model (Sam2Model) and its processor, for box prompts."""
    from transformers import Sam2Config, Sam2ImageProcessor, Sam2Model, Sam2Processor

    s = 64
    config = Sam2Config(**_tiny_sam2_parts(s))
    torch.manual_seed(0)
    Sam2Model(config).save_pretrained(folder)
    Sam2Processor(image_processor=Sam2ImageProcessor(size={"height": s, "width": s})).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def cyclist_scene(tmp_path_factory) -> Path:
    """One rendered CycliST L1 scene (8 frames, 160x90)."""
    import argparse

    from harness_builders.cyclist.commands import CyclistBuilder

    out = tmp_path_factory.mktemp("rvthf") / "cy"
    parser = argparse.ArgumentParser()
    CyclistBuilder().add_arguments(parser)
    args = ["--tier", "L1", "--num-scenes", "1", "--out", str(out), "--size", "160x90", "--frames", "8"]
    assert CyclistBuilder().run(parser.parse_args(args + ["--seed", "2", "--no_progress"])) == 0
    return out


def test_sam2_box_to_mask_part_on_a_tiny_model(tmp_path):
    from harness_builders.rvtbench.parts import load_part

    part = load_part("box_to_mask", "sam2", model=str(_tiny_sam2_image(tmp_path / "sam2img")))
    masks = part.masks(_frames(), [[[8, 10, 20, 20]], [], [[8, 10, 20, 20], [40, 20, 20, 24]]])
    assert masks.shape == (3, 48, 64) and masks.dtype == bool
    assert not masks[1].any()  # no box, no mask: nothing is made up


def test_seg_boxes_task_runs_the_tiny_sam2_pipeline_and_names_it(cyclist_scene, tmp_path, monkeypatch):
    import argparse

    from conftest import PLUGIN_PKG, write_dist_info
    from harness.config.run import RunConfig
    from harness.engine.runner import run
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    site = tmp_path / "site"
    write_dist_info(site, "harness-rvtscripted", "0.1.0", {"rvtscripted": "harness_rvtscripted.plugin"})
    monkeypatch.syspath_prepend(str(PLUGIN_PKG))
    monkeypatch.syspath_prepend(str(site))
    data = tmp_path / "rvt"
    parser = argparse.ArgumentParser()
    RvtbenchBuilder().add_arguments(parser)
    args = ["--from-synthetic", str(cyclist_scene), "--out", str(data), "--assign", "all", "--no_progress"]
    assert RvtbenchBuilder().run(parser.parse_args(args)) == 0
    model = str(_tiny_sam2_image(tmp_path / "sam2img"))
    monkeypatch.delenv("HARNESS_RVTBENCH_BOX_TO_MASK", raising=False)
    monkeypatch.setenv("HARNESS_RVTBENCH_BOX_TO_MASK_MODEL", model)
    out = run(
        RunConfig(
            tasks=["rvtbench_seg_boxes"],
            model="rvt_shifted_boxes",
            data=str(data),
            limit=2,
            output_path=str(tmp_path / "o"),
            cache_dir=str(tmp_path / "c"),
            progress=False,
        )
    )
    res = out.results["task_results"]["rvtbench_seg_boxes"]
    assert res["n_samples"] == 2 and res["n_errors"] == 0
    table = res["tables"]["by_category_level"]["overall"]
    assert table["mask_sources"] == {f"rvtbench.box_to_mask.sam2(model={model})": 2}
    assert table["J&F"] is not None and table["n_invalid"] == 0


def test_build_from_videos_with_tiny_sam2_and_depth_anything(cyclist_scene, tmp_path):
    import argparse
    import json

    from harness_builders.rvtbench.commands import RvtbenchBuilder
    from harness_builders.rvtbench.dt import validate_dt

    sam2 = _tiny_sam2(tmp_path / "sam2")
    depth = _tiny_depth_anything(tmp_path / "da")
    out = tmp_path / "built"
    parser = argparse.ArgumentParser()
    RvtbenchBuilder().add_arguments(parser)
    args = [
        "--videos",
        str(cyclist_scene / "videos" / "unicycle" / "test"),
        "--out",
        str(out),
        "--segmenter-model",
        str(sam2),
    ]
    args += ["--segmenter-args", "grid=2,max_instances=3", "--depth-model", str(depth)]
    args += ["--keyframe-interval", "4", "--max-side", "80", "--no_progress"]
    assert RvtbenchBuilder().run(parser.parse_args(args)) == 0
    (path,) = sorted((out / "dt").glob("*.json"))
    dt = json.loads(path.read_text())
    validate_dt(dt, str(path))
    assert dt["metadata"]["resolution"] == [45, 80] and len(dt["frames"]) == 8
    assert dt["metadata"]["parts"]["segmenter"] == f"sam2:{sam2} (grid=2,max_instances=3)"
    assert 0 < max(len(f["instances"]) for f in dt["frames"]) <= 3
    manifest = json.loads((out / "manifest.json").read_text())
    samples = (out / "test.jsonl").read_text().splitlines()
    assert manifest["counts"]["samples"] == len(samples) > 0
