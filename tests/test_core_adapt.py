"""Requests are fitted to a model's capabilities: frame budgets, several clips for one-video models, images."""

from __future__ import annotations

import numpy as np
import pytest

from harness.contract.messages import Capabilities, ImagePart, Message, Request, TextPart, VideoPart
from harness.data.media import VideoRef
from harness.engine.fitting import adapt_request, per_clip_budget
from harness.errors import ConfigError
from harness.frames.spec import FrameSpec


def _request(n_clips=2, frames=3):
    content = []
    for i in range(n_clips):
        label = f"[Candidate {'AB'[i]}]"
        content.append(TextPart(label))
        content.append(
            VideoPart(
                VideoRef(path=f"/v{i}.mp4"),
                np.full((frames, 4, 4, 3), i, np.uint8),
                list(range(frames)),
                [0.0] * frames,
                label,
            )
        )
    content.append(TextPart("Which one?"))
    return Request([Message("user", content)], {}, FrameSpec(strategy="uniform", count=frames), "t", "d")


def test_multi_video_model_gets_the_request_unchanged():
    req = _request()
    assert adapt_request(req, Capabilities(), "m") is req


def test_one_video_model_gets_one_labelled_interleaved_frame_list():
    out = adapt_request(_request(), Capabilities(video=True, multi_video=False, images=False), "m")
    videos = out.videos()
    assert len(videos) == 1 and videos[0].frames.shape[0] == 6
    assert [int(f[0, 0, 0]) for f in videos[0].frames] == [0, 0, 0, 1, 1, 1]  # clip order kept
    text = out.prompt_text()
    assert "frames 1-3: [Candidate A]" in text and "frames 4-6: [Candidate B]" in text
    assert text.index("[Candidate A]") < text.index("Which one?")


def test_image_model_gets_labelled_images_in_place():
    out = adapt_request(_request(), Capabilities(video=False, images=True), "m")
    parts = out.messages[0].content
    assert [type(p).__name__ for p in parts[:5]] == [
        "TextPart",
        "ImagePart",
        "ImagePart",
        "ImagePart",
        "TextPart",
    ]
    assert isinstance(parts[1], ImagePart) and parts[1].label == "[Candidate A] frame 1"


def test_model_without_video_or_images_is_refused_by_name():
    with pytest.raises(ConfigError, match="model 'blind'"):
        adapt_request(_request(), Capabilities(video=False, images=False), "blind")


def test_frame_budget_is_split_over_clips_and_only_lowers():
    assert per_clip_budget(Capabilities(max_frames=32), 6) == 5
    assert per_clip_budget(Capabilities(max_frames=None), 6) is None
    spec = FrameSpec(strategy="uniform", count=16)
    assert spec.capped(80) == spec  # a budget above the task's never raises it
    assert spec.capped(8).max_frames == 8


def test_a_clips_own_frame_spec_is_used_and_capped(tmp_path, colors_root, with_plugin):
    """A task may sample one clip more densely than the others; the model's budget still caps it."""
    import shutil

    from conftest import PLUGIN_PKG
    from harness.config.run import RunConfig
    from harness.engine.runner import run
    from harness.plugins.loading import load_plugins
    from harness.results.writer import read_samples

    folder = tmp_path / "tasks"
    shutil.copytree(PLUGIN_PKG / "harness_colors" / "tasks", folder)
    (folder / "two.py").write_text(
        "from harness.api import FrameSpec, Message, TextPart, VideoPart, VideoRef\n"
        "def build(doc, task):\n"
        "    dense = FrameSpec(strategy='uniform', count=12)\n"
        "    return [Message('user', [VideoPart(ref=VideoRef(path=doc['video'], label='context'), spec=dense),\n"
        "                             VideoPart(ref=VideoRef(path=doc['video'], label='candidate')),\n"
        "                             TextPart(doc['question'])])]\n"
    )
    cfg_text = (
        (folder / "colors.yaml")
        .read_text()
        .replace("  parse: hooks.py:parse\n", "  parse: hooks.py:parse\n  build_request: two.py:build\n", 1)
    )
    (folder / "colors.yaml").write_text(cfg_text)
    state = load_plugins(include_paths=[folder], use_entry_points=False)
    state.registry.add(load_plugins(env={"HARNESS_PLUGINS": "colors"}).registry.get("model", "counting"))
    for limit, expected in ((None, [12, 8]), (10, [5, 5])):
        margs = {} if limit is None else {"max_frames": limit}
        cfg = RunConfig(
            tasks=["colors_qa"],
            model="counting",
            model_args=margs,
            data=colors_root,
            limit=2,
            output_path=tmp_path / f"o{limit}",
            log_samples=True,
            cache_dir=tmp_path / "c",
            progress=False,
        )
        out = run(cfg, state)
        rec = read_samples(out.samples_paths["colors_qa"])[0]
        assert [len(m["indices"]) for m in rec["media"]] == expected
        assert "frame_spec" in rec["media"][0] and "frame_spec" not in rec["media"][1]
