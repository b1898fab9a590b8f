"""TempCloze visible-span analysis (public subset/eval_boundary_k.py): BEGINNING shows the last K and END the
first K of their 16 bin-centred frames, candidates keep 16. Hand-checked indices on marker videos, then
end to end on builder-made sets: oracle 100 %, per-clip frame counts in the samples' media log, the
per-condition table, the model's frame budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tempcloze_helpers import root_fixtures
from tempcloze_helpers import run_tasks as _run
from tempcloze_helpers import samples as _samples

from harness.api import Capabilities, DataError, FrameSpec, Model, Response, VideoRef
from harness.frames import load_clip
from harness.frames.synthetic import read_marker, write_marker_video
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry
from harness_tasks.tempcloze.loader import load
from harness_tasks.tempcloze.protocol import public_frame_indices
from harness_tasks.tempcloze.span import visible_clip

SPEC = FrameSpec(strategy="segment", count=16, trim=1, max_height=360)  # the task's frame spec
N_VIDEOS = 3
SPAN_TASKS = ["tempcloze_hard_span", "tempcloze_hard_span1", "tempcloze_hard_span12"]


@pytest.fixture(scope="module")
def markers(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("markers")
    write_marker_video(root / "before.mp4", 25, 64, 48, fps=10.0)
    write_marker_video(root / "after.mp4", 19, 64, 48, fps=10.0)
    write_marker_video(root / "source.mp4", 60, 64, 48, fps=10.0)
    return root


def _shown(markers: Path, ref: VideoRef, clip: str, k: int) -> tuple[list[int], list[int]]:
    """(source indices named by the visible clip, marker numbers of the frames the harness decodes)."""
    cut, own = visible_clip(ref, clip, k, SPEC, markers, "test")
    decoded = load_clip(cut.model_copy(update={"path": str(markers / cut.path)}), own)
    return list(decoded.indices), [read_marker(f) for f in decoded.frames]


def test_visible_frames_match_hand_checked_indices(markers):
    # 25-frame BEGINNING: 1 + int((i + 0.5) * 23 / 16) for i = 0..15 is
    # 1 3 4 6 7 8 10 11 13 14 16 17 18 20 21 23 (worked by hand); the last K of it:
    before = VideoRef(path="before.mp4")
    assert _shown(markers, before, "before", 4) == ([18, 20, 21, 23], [18, 20, 21, 23])
    assert _shown(markers, before, "before", 1)[1] == [23]
    assert _shown(markers, before, "before", 8)[1] == [13, 14, 16, 17, 18, 20, 21, 23]
    assert _shown(markers, before, "before", 40)[1] == public_frame_indices(25)  # K >= 16: all 16
    # 19-frame END: 1 + int((i + 0.5) * 17 / 16) = 1 2 3 4 5 6 7 8 10 11 12 13 14 15 16 17; the first K:
    after = VideoRef(path="after.mp4")
    assert _shown(markers, after, "after", 4)[1] == [1, 2, 3, 4]
    assert _shown(markers, after, "after", 12)[1] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13]
    # a virtual END clip, frames [41, 60) of a 60-frame source: the same positions, shifted by 41
    virtual = VideoRef.model_validate({"path": "source.mp4", "segments": [{"start": 41, "end": 60}]})
    assert _shown(markers, virtual, "after", 4)[1] == [42, 43, 44, 45]
    with pytest.raises(ValueError, match="context clips"):
        visible_clip(before, "GT", 4, SPEC, markers, "test")


virtual_root, files_root = root_fixtures("span", N_VIDEOS, 2)


@pytest.mark.parametrize("which", ["virtual_root", "files_root"])
def test_oracle_scores_100_percent_on_every_span_task(which, request, tmp_path):
    data = request.getfixturevalue(which)
    out = _run(tmp_path, data, SPAN_TASKS, "oracle")
    n = 2 if which == "files_root" else N_VIDEOS
    for name, res in out.results["task_results"].items():
        assert res["n_errors"] == 0 and res["n_invalid"] == 0, (name, res["errors"])
        assert res["metrics"]["accuracy"]["value"] == 1.0, name
    combined = out.results["task_results"]["tempcloze_hard_span"]
    assert combined["n_samples"] == 3 * n * 5
    assert set(combined["breakdowns"]["span"]) == {"K1", "K4", "K8", "K12", "Full"}
    assert combined["tables"]["joint"]["n_videos"] == n  # joint: one condition (Full), not all five


class FramesAware(Model):
    """Answers right only when BEGINNING reaches it with at least 8 frames (it counts what it gets), so
    K1 and K4 are wrong and K8, K12 and Full right; records the frames of every clip."""

    name = "frames_aware"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True)
    seen: dict = {}

    def generate(self, requests):
        out = []
        for r in requests:
            frames = {v.label: v.frames.shape[0] for v in r.videos()}
            FramesAware.seen[r.doc_id] = frames
            right = json.loads(r.hints["oracle_answer"]["text"])["answer"]
            wrong = next(c for c in "ABCD" if c != right)
            letter = right if frames["[BEGINNING]"] >= 8 else wrong
            out.append(Response(text=json.dumps({"answer": letter, "reason": "frames"})))
        return out


def _with_model(name: str, factory) -> object:
    state = load_plugins()
    state.registry.add(Entry("model", name, factory, plugin="tests"))
    return state


def test_media_log_and_table_show_k_context_frames_and_16_candidate_frames(virtual_root, tmp_path):
    FramesAware.seen = {}
    state = _with_model("frames_aware", FramesAware)
    out = _run(tmp_path, virtual_root, ["tempcloze_hard_span"], "frames_aware", state)
    data = virtual_root / "tempcloze"
    candidate_counts: dict[str, dict[str, int]] = {}
    for rec in _samples(out, "tempcloze_hard_span"):
        doc, media = rec["doc"], {m["label"]: m for m in rec["media"]}
        k = doc["context_frames"]
        assert doc["id"].endswith(f"|{doc['span']}") and doc["span"] == ("Full" if k is None else f"K{k}")
        clips = json.loads((data / "choices" / doc["stem"] / "clips.json").read_text())["clips"]
        for label, name in (("[BEGINNING]", "before"), ("[END]", "after")):
            (seg,) = clips[name]
            full = [seg["start"] + i for i in public_frame_indices(seg["end"] - seg["start"])]
            want = full if k is None else (full[-k:] if name == "before" else full[:k])
            assert media[label]["indices"] == want, (doc["id"], label)
            assert ("frame_spec" in media[label]) == (k is not None)
            assert FramesAware.seen[rec["doc_id"]][label] == len(want)
        for letter, name in zip("ABCD", doc["options"], strict=True):
            cand = media[f"[Candidate {letter}]"]
            length = sum((s["end"] - s["start"]) * s["repeat"] for s in clips[name])
            assert len(cand["indices"]) == min(16, length - 2) and "frame_spec" not in cand
            counts = candidate_counts.setdefault(doc["span"], {})
            counts[str(len(cand["indices"]))] = counts.get(str(len(cand["indices"])), 0) + 1
    table = out.results["task_results"]["tempcloze_hard_span"]["tables"]["visible_span"]
    assert table["conditions"] == ["K1", "K4", "K8", "K12", "Full"]
    n = 3 * N_VIDEOS
    for cond, acc in (("K1", 0.0), ("K4", 0.0), ("K8", 1.0), ("K12", 1.0), ("Full", 1.0)):
        row = table["by_condition"][cond]
        assert row["overall"]["n_items"] == n and row["overall"]["n_correct"] == n * acc
        assert row["overall"]["accuracy"] == acc and row["mean_over_dimensions"] == acc
        assert {d: c["n_items"] for d, c in row["per_dimension"].items()} == {"S": 3, "A": 3, "P": 3}
        if row["context_frames"] is not None:
            assert row["frames_shown"]["[BEGINNING]"] == {str(row["context_frames"]): n}
        assert row["frames_shown"]["candidates"] == dict(
            sorted(candidate_counts[cond].items(), key=lambda kv: int(kv[0]))
        )


def test_report_shows_the_visible_span_table(virtual_root, tmp_path):
    from harness.report import load_runs
    from harness_tasks.tempcloze.report_sections import tempcloze_sections

    out = _run(
        tmp_path,
        virtual_root,
        ["tempcloze_hard_span"],
        "frames_aware",
        _with_model("frames_aware", FramesAware),
    )
    (run_,) = load_runs([out.results_path])
    tables = {t.title: t for s in tempcloze_sections([run_]) for t in s.tables}
    table = tables["tempcloze_hard_span: visible span, accuracy (%)"]
    assert table.columns == ["K1", "K4", "K8", "K12", "Full"]
    for row in ("Semantic", "Alignment", "Progression", "Overall"):
        cells = [table.cell(f"{run_['_label']} · {row}", c) for c in table.columns]
        assert [c.value for c in cells] == [0.0, 0.0, 1.0, 1.0, 1.0] and all(c.chance == 0.25 for c in cells)
        assert cells[0].n == (3 * N_VIDEOS if row == "Overall" else N_VIDEOS)


class Budget36(FramesAware):
    """36 frames per request: 6 per clip over the six clips."""

    name = "budget36"
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=36)


def test_the_models_frame_budget_caps_the_context_clips_too(virtual_root, tmp_path):
    out = _run(tmp_path, virtual_root, ["tempcloze_hard_span"], "budget36", _with_model("budget36", Budget36))
    table = out.results["task_results"]["tempcloze_hard_span"]["tables"]["visible_span"]["by_condition"]
    n = 3 * N_VIDEOS
    expected = {"K1": "1", "K4": "4", "K8": "6", "K12": "6", "Full": "6"}
    assert {c: table[c]["frames_shown"]["[BEGINNING]"] for c in expected} == {
        c: {v: n} for c, v in expected.items()
    }
    assert all(table[c]["frames_shown"]["candidates"] == {"6": 4 * n} for c in expected)


def test_context_frames_option_is_checked(virtual_root):
    data = virtual_root / "tempcloze"
    with pytest.raises(DataError, match="context_frames"):
        load(data, "test", {"subset": "hard", "context_frames": [0]})
    with pytest.raises(DataError, match="Mixed subset takes one"):
        load(data, "test", {"subset": "mixed", "context_frames": [1, 4]})
    docs = load(data, "test", {"subset": "hard", "context_frames": 4})  # a single value is accepted
    assert {d["span"] for d in docs} == {"K4"} and len(docs) == 3 * N_VIDEOS
