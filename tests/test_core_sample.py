"""One sample built once and carried: the request (paths resolved and the frame budget applied in one pass),
the effective frame spec and decoder identity computed once and recorded, the parse hook's arguments decided
once, and the typed record the samples file is written from."""

from __future__ import annotations

import inspect
import json
import shutil

import numpy as np
import pytest

from harness.api import Capabilities, Message, Model, Request, Response, TextPart, VideoPart, VideoRef
from harness.config.run import RunConfig
from harness.contract import hooks as hooks_module
from harness.data.task import with_judge
from harness.engine.runner import run
from harness.frames import FrameSpec, decoder_identity, decoder_version_for, decoder_versions
from harness.frames.clip import DecodedClip
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry
from harness.results.writer import read_samples

TWO_CLIPS_YAML = """\
task: colors_two_clips
version: 1
dataset: {data_key: colors, split: test}
doc_id: id
media_field: video
target_field: answer
frames: {strategy: uniform, count: 8, max_side: 64}
hooks: {build_request: clips.py:build, parse: clips.py:parse}
metrics:
  - {name: accuracy, headline: true}
"""

CLIPS_PY = """\
from harness.api import FrameSpec, Message, Parsed, TextPart, VideoPart, VideoRef

JUDGES = []


def build(doc, task):
    return [Message("user", [
        VideoPart(VideoRef(path=doc["video"]), label="Clip 1"),
        VideoPart(VideoRef(path=doc["video"]), label="Clip 2", spec=FrameSpec(strategy="uniform", count=12)),
        TextPart("Which colour?"),
    ])]


def parse(response, doc, judge):
    JUDGES.append(judge)
    return Parsed(answer=(response.text or "").strip())
"""


class _FourFrames(Model):
    """Four frames per request in all; answers the oracle's answer and logs each clip's frame count."""

    name = "four_frames"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=4)
    seen: list[list[int]] = []

    def generate(self, requests):
        for r in requests:
            _FourFrames.seen.append([len(v.frames) for v in r.videos()])
        return [Response(text=str(r.hints["oracle_answer"])) for r in requests]


@pytest.fixture
def two_clips(tmp_path, colors_root):
    """A two-clip task over a copy of the data whose first video is missing."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "two_clips.yaml").write_text(TWO_CLIPS_YAML)
    (tasks / "clips.py").write_text(CLIPS_PY)
    data = tmp_path / "data"
    shutil.copytree(colors_root, data)
    first = json.loads((data / "colors" / "test.jsonl").read_text().splitlines()[0])
    (data / "colors" / first["video"]).unlink()
    state = load_plugins([str(tasks)])
    state.registry.add(Entry("model", "four_frames", _FourFrames))
    return state, data, tasks


def _cfg(tmp_path, data, tasks, **kw):
    return RunConfig(
        tasks=["colors_two_clips"], model="four_frames", data=data, output_path=tmp_path / "out",
        log_samples=True, cache_dir=tmp_path / "cache", include_path=[str(tasks)], progress=False, **kw,
    )  # fmt: skip


def test_the_effective_frame_spec_is_the_one_the_samples_were_built_under(tmp_path, two_clips):
    """Two clips under a four-frame budget: two frames per clip, in every request and in the results, even
    though the first sample (whose video is missing) has no media to guess the clip count from."""
    state, data, tasks = two_clips
    _FourFrames.seen = []
    out = run(_cfg(tmp_path, data, tasks), state)
    res = out.results["task_results"]["colors_two_clips"]
    assert 1 <= res["n_errors"] < res["n_samples"]  # the samples of the missing video
    assert _FourFrames.seen and all(counts == [2, 2] for counts in _FourFrames.seen)
    effective = out.results["config"]["tasks"]["colors_two_clips"]["effective_frame_spec"]
    assert effective["max_frames"] == 2  # the guess from the first record's media said 4
    records = read_samples(out.samples_paths["colors_two_clips"])
    assert records[0]["error"]["kind"] == "media" and records[0]["media"] == []
    digest = FrameSpec(**effective).digest()
    assert {r["frame_spec"] for r in records} == {digest}  # every sample: the same spec, recorded once
    built = [r for r in records if not r["error"]]
    own = FrameSpec(strategy="uniform", count=12, max_frames=2).digest()
    assert built and all(r["media"][1]["frame_spec"] == own for r in built)  # a clip's own spec: same budget


def test_the_parse_hook_receives_the_judge_by_its_declared_form_read_once(tmp_path, two_clips, monkeypatch):
    """A three-parameter parser gets the judge argument (None without --judge) on every sample; which form a
    parser has is read from its signature once, when the task loads it, not per sample."""
    state, data, tasks = two_clips
    calls = []
    real = inspect.signature
    monkeypatch.setattr(hooks_module.inspect, "signature", lambda fn: calls.append(fn) or real(fn))
    out = run(_cfg(tmp_path, data, tasks), state)
    res = out.results["task_results"]["colors_two_clips"]
    assert res["metrics"]["accuracy"]["value"] == 1.0
    parse_reads = [fn for fn in calls if getattr(fn, "__name__", "") == "parse"]
    assert 0 < len(parse_reads) <= 2 < res["n_samples"]  # its contract check and its form, once, at load


def test_both_documented_parse_forms_are_called_as_response_doc_judge():
    def two(response, doc):
        return ("two", response.text, doc["doc_id"])

    def three(response, doc, judge):
        return ("three", judge)

    response, doc = Response(text="red"), {"doc_id": "7"}
    assert with_judge(two)(response, doc, "the judge") == ("two", "red", "7")
    assert with_judge(three) is three and with_judge(three)(response, doc, "the judge") == ("three", "the judge")


def test_decoding_fills_a_copy_of_the_request_never_the_one_the_sample_carries():
    spec = FrameSpec(strategy="uniform", count=2)
    part = VideoPart(VideoRef(path="/v.mp4"), label="Clip 1", spec=spec)
    request = Request([Message("user", [part, TextPart("q")])], {"temperature": 0}, spec, "t", "1", {"seed": 3})
    frames = np.zeros((2, 4, 4, 3), np.uint8)
    clip = DecodedClip(frames=frames, indices=[0, 5], timestamps=[0.0, 0.5], fps=10.0, source_size=(4, 4),
                       decoder="pyav-1", from_cache=False)  # fmt: skip
    decoded = request.with_frames([clip])
    assert request.videos()[0].frames is None  # the carried request holds no frames
    video = decoded.videos()[0]
    assert video.frames is frames and video.indices == [0, 5] and video.timestamps == [0.0, 0.5]
    assert (video.label, video.spec, video.ref) == ("Clip 1", spec, part.ref)
    assert (decoded.gen_kwargs, decoded.frame_spec, decoded.task, decoded.doc_id, decoded.hints) == (
        {"temperature": 0}, spec, "t", "1", {"seed": 3}
    )  # fmt: skip
    assert decoded.prompt_text() == request.prompt_text() == "<video:Clip 1>q"


def test_the_decoder_identity_is_one_definition_for_both_caches():
    """The response cache's keys and the frame cache's keys name a spec's decoder the same way."""
    auto = FrameSpec(strategy="uniform", count=2)
    versions = decoder_versions()
    assert decoder_identity(auto) == decoder_version_for(auto) == "auto:" + ",".join(
        f"{k}={v}" for k, v in sorted(versions.items())
    )
    pyav = FrameSpec(strategy="uniform", count=2, decoder="pyav")
    assert decoder_identity(pyav) == decoder_version_for(pyav) == versions["pyav"]
