"""RVTBench builder stages through registered models and parts (issue 10): the LLM selector and query writer,
the VLM describer, and `python -m harness build rvtbench --videos` end to end (scripted test plugin)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builds import build_with

from conftest import harness_env, run_harness
from harness_builders.rvtbench.dt import validate_dt

TASK_TYPES = ("segmentation", "grounding", "vqa", "summary")


@pytest.fixture(scope="module")
def cyclist(tmp_path_factory) -> Path:
    """Two rendered CycliST L1 scenes (16 frames, 160x90): exact DTs, and small videos for --videos."""
    from harness_builders.cyclist.commands import CyclistBuilder

    out = tmp_path_factory.mktemp("rvtllm") / "cy"
    build_with(
        CyclistBuilder(),
        ["--tier", "L1", "--num-scenes", "2", "--out", str(out), "--size", "160x90"]
        + ["--frames", "16", "--seed", "4", "--no_progress"],
    )
    return out


def _samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]


def _llm_build(cyclist: Path, out: Path, mode: str):
    from harness_builders.rvtbench.config import BuildOptions
    from harness_builders.rvtbench.parts import load_model, load_part
    from harness_builders.rvtbench.pipeline import build_dataset
    from harness_builders.rvtbench.synthetic import synthetic_sources

    model = load_model("rvt_json_llm", mode=mode)
    selector = load_part("selector", "llm", model=model, objects_per_video=3)
    writer = load_part("query", "llm", model=model)
    options = BuildOptions(seed=5, selector="llm", query="llm", parts={"dt": "synthetic:cyclist"})
    manifest = build_dataset(synthetic_sources(cyclist, 4), out, options, selector, writer, progress=False)
    return model, manifest


def test_llm_selection_and_queries_come_from_the_registered_model(cyclist, scripted, tmp_path):
    model, manifest = _llm_build(cyclist, tmp_path / "llm", "json")
    samples = _samples(tmp_path / "llm")
    assert samples and manifest["counts"]["llm_fallbacks"] == {"selector": 0, "queries": 0}
    assert manifest["options"]["selector"] == manifest["options"]["query"] == "llm"
    picks: dict[tuple[str, str], str] = {}  # what the model chose, read back from the prompts it saw
    for doc_id, prompt, reply in model.calls:
        if "Choose up to" in prompt:
            for item in json.loads(reply):
                picks[(doc_id, item["id"])] = item["task_type"]
    assert len({t for t in picks.values()}) >= 3
    for s in samples:
        assert picks[(s["video"], s["object_id"])] == s["task_type"]
        assert s["query"] == f"scripted query L{s['level']} for {s['task_type']}"
        assert s["categories"] == ["spatial"]
        if s["task_type"] in ("vqa", "summary"):
            assert s["answer"] == {"text": f"scripted {s['task_type']} answer L{s['level']}"}
    query_prompts = [p for _, p, _ in model.calls if "Write an implicit query" in p]
    assert len(query_prompts) == len(samples) and all("Digital twin of a video" in p for p in query_prompts)


def test_unusable_llm_replies_fall_back_to_rules_and_templates_and_are_counted(cyclist, scripted, tmp_path):
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    _, manifest = _llm_build(cyclist, tmp_path / "garbage", "garbage")
    build_with(
        RvtbenchBuilder(),
        ["--from-synthetic", str(cyclist), "--out", str(tmp_path / "rules"), "--keyframe-interval", "4"]
        + ["--seed", "5", "--templates", "--no_progress"],
    )
    n = manifest["counts"]["samples"]
    assert n > 0 and manifest["counts"]["llm_fallbacks"] == {"selector": 2, "queries": n}
    assert (tmp_path / "garbage" / "test.jsonl").read_bytes() == (
        tmp_path / "rules" / "test.jsonl"
    ).read_bytes()


def test_vlm_describer_sends_the_masked_object_scene_and_key_frames(scripted):
    import numpy as np

    from harness_builders.rvtbench.parts import load_part

    describer = load_part("describer", "vlm", model_name="rvt_scripted_vlm")
    frame = np.full((12, 16, 3), 200, dtype=np.uint8)
    mask = np.zeros((12, 16), dtype=bool)
    mask[2:5, 3:7] = True
    text, attrs = describer.describe_instance(frame, mask, {})
    assert (text, attrs) == ("A scripted object.", {"category": "a scripted object"})
    assert describer.describe_scene(frame) == "A scripted scene."
    assert describer.describe_video([frame] * 3, 2) == "A scripted video of 3 key frames."
    assert describer.calls == 3
    shown = describer.model.seen[0][0]  # the object as it is, the background dimmed to a quarter
    assert (shown[mask] == 200).all() and (shown[~mask] == 50).all()
    assert [len(images) for images in describer.model.seen] == [1, 1, 3]
    with pytest.raises(ValueError, match="--describer-model"):
        load_part("describer", "vlm")


def test_build_from_videos_on_the_cli_with_registered_parts(cyclist, scripted, tmp_path):
    videos = tmp_path / "videos"
    videos.mkdir()
    for src in sorted((cyclist / "videos" / "unicycle" / "test").glob("*.mp4")):  # the release layout
        (videos / src.name).write_bytes(src.read_bytes())
    out = tmp_path / "built"
    proc = run_harness(
        ["build", "rvtbench", "--videos", str(videos), "--out", str(out), "--segmenter", "scripted"]
        + ["--depth", "scripted", "--describer-model", "rvt_scripted_vlm", "--query-model", "rvt_json_llm"]
        + ["--keyframe-interval", "4", "--no_progress"],
        harness_env(scripted),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    dts = sorted((out / "dt").glob("*.json"))
    assert [p.stem for p in dts] == ["test_0", "test_1"]
    for path in dts:
        dt = json.loads(path.read_text())
        validate_dt(dt, str(path))
        meta = dt["metadata"]
        assert meta["source"] == "perception" and meta["duration"] == len(dt["frames"]) == 16
        assert meta["parts"]["segmenter"] == "scripted:hue-bins" and meta["parts"]["describer"].startswith(
            "vlm"
        )
        assert meta["description"] == "A scripted video of 4 key frames."
        assert [f["keyframe"] for f in dt["frames"]] == [t % 4 == 0 for t in range(16)]
        instances = [i for f in dt["frames"] for i in f["instances"].values()]
        assert instances and all(i["description"] == "A scripted object." for i in instances)
    samples = _samples(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert samples and manifest["counts"]["samples"] == len(samples)
    assert manifest["counts"]["llm_fallbacks"] == {"selector": 0, "queries": 0}
    assert {s["task_type"] for s in samples} <= set(TASK_TYPES)
    assert all((out / s["video"]).exists() and (out / s["dt"]).exists() for s in samples)
