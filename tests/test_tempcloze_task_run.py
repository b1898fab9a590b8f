"""TempCloze task plugin end to end on sets the TempCloze builder makes (virtual and file items): baselines,
the one-video fitting of the six labelled clips, every table in results.json, reordering and pass@k."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from tempcloze_helpers import root_fixtures
from tempcloze_helpers import run_tasks as _run
from tempcloze_helpers import samples as _samples

from harness.api import Capabilities, Model, Response
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry

N_VIDEOS = 12


virtual_root, files_root = root_fixtures("tc", N_VIDEOS, 3)


def _with_model(name: str, factory) -> object:
    state = load_plugins()
    state.registry.add(Entry("model", name, factory, plugin="tests"))
    return state


ALL_TASKS = [
    "tempcloze",
    "tempcloze_semantic",
    "tempcloze_mixed",
    "tempcloze_hard",
    "tempcloze_hard_reorder",
    "tempcloze_hard_beginning",
    "tempcloze_hard_end",
    "tempcloze_hard_frames8",
    "tempcloze_hard_passk",
]


@pytest.mark.parametrize("which", ["virtual_root", "files_root"])
def test_oracle_scores_100_percent_on_every_task(which, request, tmp_path):
    data = request.getfixturevalue(which)
    out = _run(tmp_path, data, ALL_TASKS, "oracle")
    for name, res in out.results["task_results"].items():
        assert res["n_errors"] == 0 and res["n_invalid"] == 0, (name, res["errors"])
        assert res["metrics"]["accuracy"]["value"] == 1.0, name
    passk = out.results["task_results"]["tempcloze_hard_passk"]["tables"]["pass_at_k"]["overall"]
    assert all(passk[f"pass@{k}"]["value"] == 1.0 for k in range(1, 6))
    assert out.results["group_results"]["tempcloze"]["metrics"]["accuracy"]["value"] == 1.0


def test_random_is_near_chance(virtual_root, tmp_path):
    # 12 videos x 3 dimensions x 4 orders = 144 seeded draws; tolerance 0.12 is about 3.3 standard errors.
    out = _run(tmp_path, virtual_root, ["tempcloze_hard_reorder"], "random")
    res = out.results["task_results"]["tempcloze_hard_reorder"]
    assert res["n_samples"] == 144 and res["n_invalid"] == 0
    assert abs(res["metrics"]["accuracy"]["value"] - 0.25) <= 0.12


def test_baseline_models_answer_every_item(virtual_root, tmp_path):
    for model in ("tempcloze_edge", "tempcloze_single_frame"):
        out = _run(tmp_path, virtual_root, ["tempcloze", "tempcloze_hard_beginning"], model)
        for res in out.results["task_results"].values():
            assert res["n_errors"] == 0 and res["n_invalid"] == 0
            assert res["metrics"]["accuracy"]["n"] == res["n_samples"]


class OneVideoModel(Model):
    """Takes one video per request; records what it gets and answers 'A'."""

    name = "one_video"
    capabilities = Capabilities(video=True, multi_video=False, images=False)
    seen: list = []

    def generate(self, requests):
        OneVideoModel.seen.extend(requests)
        return [Response(text='{"answer": "A", "reason": "r"}') for _ in requests]


def test_a_one_video_model_gets_one_labelled_interleaved_frame_list(virtual_root, tmp_path):
    OneVideoModel.seen = []
    out = _run(
        tmp_path,
        virtual_root,
        ["tempcloze_semantic"],
        "one_video",
        _with_model("one_video", OneVideoModel),
        limit=2,
    )
    assert len(OneVideoModel.seen) == 2
    media = _samples(out, "tempcloze_semantic")[0]["media"]
    labels = ["[BEGINNING]", "[END]"] + [f"[Candidate {c}]" for c in "ABCD"]
    assert [m["label"] for m in media] == labels
    req = OneVideoModel.seen[0]
    videos = req.videos()
    assert len(videos) == 1
    counts = [len(m["indices"]) for m in media]
    assert videos[0].frames.shape[0] == sum(counts)
    assert videos[0].indices == [i for m in media for i in m["indices"]]
    start, legend = 1, []
    for label, n in zip(labels, counts, strict=True):
        legend.append(f"frames {start}-{start + n - 1}: {label}")
        start += n
    text = req.prompt_text()
    assert text.startswith("You are given:") and all(lab in text for lab in labels)
    # the legend reaches the model once: in the text before the merged video, not again as its label
    assert videos[0].label is None and text.count("; ".join(legend)) == 1


def _oracle_letter(r) -> str:
    return json.loads(r.hints["oracle_answer"]["text"])["answer"]


class RuleModel(Model):
    """Scripted: Semantic right, Alignment always the first wrong letter, Progression invalid for the first
    half of the videos and right otherwise; Mixed the first wrong letter."""

    name = "rule"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=6)
    invalid_stems: set = set()

    def generate(self, requests):
        out = []
        for r in requests:
            right = _oracle_letter(r)
            wrong = next(c for c in "ABCD" if c != right)
            parts = r.doc_id.split("|")
            dim = parts[1] if len(parts) > 1 else "mixed"
            if dim == "S":
                letter = right
            elif dim == "P":
                letter = None if parts[0] in RuleModel.invalid_stems else right
            else:
                letter = wrong
            text = "I cannot tell." if letter is None else json.dumps({"answer": letter, "reason": "rule"})
            out.append(Response(text=text))
        return out


def test_results_json_holds_every_metric_with_counts(virtual_root, tmp_path):
    stems = sorted(json.loads((virtual_root / "tempcloze" / "subset_ids.json").read_text()))
    RuleModel.invalid_stems = set(stems[: N_VIDEOS // 2])
    out = _run(
        tmp_path, virtual_root, ["tempcloze", "tempcloze_mixed"], "rule", _with_model("rule", RuleModel)
    )
    on_disk = json.loads(out.results_path.read_text())
    res = on_disk["task_results"]["tempcloze_all"]
    half = N_VIDEOS // 2
    assert res["n_samples"] == 3 * N_VIDEOS and res["n_invalid"] == half
    assert res["metrics"]["accuracy"]["value"] == pytest.approx((N_VIDEOS + half) / (3 * N_VIDEOS - half))
    assert res["metrics"]["accuracy_strict"]["value"] == pytest.approx((N_VIDEOS + half) / (3 * N_VIDEOS))
    assert res["metrics"]["invalid"]["value"] == pytest.approx(half / (3 * N_VIDEOS))
    assert res["breakdowns"]["dimension"]["A"]["accuracy"]["value"] == 0.0
    t = res["tables"]
    assert "invalid answers excluded" in t["headline"]["note"]
    per = t["per_dimension"]
    assert (per["S"]["accuracy"], per["A"]["accuracy"], per["P"]["accuracy"]) == (1.0, 0.0, 1.0)
    assert (per["P"]["n_valid"], per["P"]["n_invalid"], per["P"]["accuracy_strict"]) == (half, half, 0.5)
    assert t["overall"]["n_correct"] == N_VIDEOS + half
    assert t["mean_over_dimensions"]["accuracy"] == pytest.approx(2 / 3)
    assert t["mean_over_dimensions"]["accuracy_strict"] == pytest.approx(0.5)
    joint = t["joint"]
    assert joint["n_videos"] == half and joint["n_videos_excluded"] == half
    expect = {"at_least_1": half, "at_least_2": half, "all_3": 0, "S+A": 0, "S+P": half, "A+P": 0}
    assert {k: joint[k]["count"] for k in expect} == expect
    assert joint["S+P"]["value"] == 1.0 and joint["S+P"]["n"] == half
    assert t["chance"]["all_3"] == pytest.approx(1 / 64)
    # Alignment errors: the first wrong letter's clip, known from each sample's doc
    samples = _samples(out, "tempcloze_all")
    kinds = {}
    for rec in samples:
        doc = rec["doc"]
        if doc["dimension"] == "A":
            first_wrong = next(i for i, c in enumerate(doc["options"]) if c != "GT")
            kind = doc["option_kinds"][first_wrong]
            kinds[kind] = kinds.get(kind, 0) + 1
    src = t["error_sources"]["A"]
    assert src["n_errors"] == N_VIDEOS
    for kind in ("Early", "Late", "Wide"):
        assert src["chosen"][kind]["count"] == kinds.get(kind, 0)
        assert src["chosen"][kind]["share_of_errors"] == pytest.approx(kinds.get(kind, 0) / N_VIDEOS)
    assert t["error_sources"]["S"]["n_errors"] == 0
    mixed = on_disk["task_results"]["tempcloze_mixed"]["tables"]["mixed"]
    by_dim = mixed["error_sources_by_dimension"]
    assert mixed["n_items"] == N_VIDEOS and by_dim["n_errors"] == N_VIDEOS
    assert sum(by_dim["chosen"][d]["count"] for d in "SAP") == N_VIDEOS
    assert sum(by_dim["chosen"][d]["share_of_items"] for d in "SAP") == pytest.approx(1.0)
    assert on_disk["group_results"]["tempcloze"]["tasks"] == ["tempcloze_all"]


class AlwaysA(Model):
    """Position bias: always 'A'."""

    name = "always_a"
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=6)

    def generate(self, requests):
        return [Response(text='{"answer": "A", "reason": "first"}') for _ in requests]


class ContentPicker(Model):
    """Order-invariant: picks the candidate whose frames hash lowest (the same clip wherever it is shown).
    It takes all 16 frames per clip, so distinct clips (e.g. GT and Reverse) never hash alike."""

    name = "content"
    capabilities = Capabilities(video=True, multi_video=True, images=True)

    def generate(self, requests):
        out = []
        for r in requests:
            cands = {
                v.label[-2]: hashlib.sha256(np.ascontiguousarray(v.frames).tobytes()).hexdigest()
                for v in r.videos()
                if v.label.startswith("[Candidate")
            }
            out.append(Response(text=json.dumps({"answer": min(cands, key=cands.get), "reason": "hash"})))
        return out


def test_reordering_analysis_gives_the_known_flip_rates(virtual_root, tmp_path):
    out = _run(
        tmp_path, virtual_root, ["tempcloze_hard_reorder"], "always_a", _with_model("always_a", AlwaysA)
    )
    table = out.results["task_results"]["tempcloze_hard_reorder"]["tables"]["reordering"]
    n = 3 * N_VIDEOS
    assert table["orders"] == ["r0", "r1", "r2", "r3"] and table["overall"]["n_items"] == n
    # The rotation under which GT sits at letter A: r* = (-p) % 4 for GT at base position p.
    right_at = {}
    for rec in _samples(out, "tempcloze_hard_reorder"):
        doc = rec["doc"]
        if doc["rotation"] == 0:
            right_at[(doc["stem"], doc["dimension"])] = (-doc["options"].index("GT")) % 4
    overall = table["overall"]
    assert overall["clip_flip_rate"] == 1.0 and overall["correctness_flip_rate"] == 0.5
    for pair in overall["pairs"]:
        i, j = (int(o[1]) for o in pair["orders"])
        assert pair["clip_flip_rate"] == 1.0
        assert pair["correctness_flip_rate"] == pytest.approx(sum(r in (i, j) for r in right_at.values()) / n)
    for k in range(4):
        assert overall["accuracy_by_order"][f"r{k}"] == pytest.approx(
            sum(r == k for r in right_at.values()) / n
        )
    assert overall["accuracy_mean"] == pytest.approx(0.25)
    accs = overall["accuracy_by_order"].values()
    assert overall["accuracy_range"] == pytest.approx(max(accs) - min(accs))  # the public plot's range
    assert overall["orders_right_histogram"] == {"4": 0, "3": 0, "2": 0, "1": n, "0": 0}

    out2 = _run(
        tmp_path, virtual_root, ["tempcloze_hard_reorder"], "content", _with_model("content", ContentPicker)
    )
    stable = out2.results["task_results"]["tempcloze_hard_reorder"]["tables"]["reordering"]["overall"]
    assert stable["clip_flip_rate"] == 0.0 and stable["correctness_flip_rate"] == 0.0
    assert stable["accuracy_std"] == 0.0 and stable["accuracy_range"] == 0.0
    assert set(stable["orders_right_histogram"]) == {"4", "3", "2", "1", "0"}
    assert stable["orders_right_histogram"]["4"] + stable["orders_right_histogram"]["0"] == n


class Sampler(Model):
    """Test-time scaling contract: gen_kwargs["n"] answers in Response.structured["samples"]; here one of
    five is right (the second), so pass@k = k / 5."""

    name = "sampler"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=6)
    gen_seen: list = []

    def generate(self, requests):
        out = []
        for r in requests:
            Sampler.gen_seen.append(dict(r.gen_kwargs))
            right = _oracle_letter(r)
            wrong = next(c for c in "ABCD" if c != right)
            texts = [json.dumps({"answer": x, "reason": ""}) for x in (wrong, right, wrong, wrong, wrong)]
            out.append(
                Response(text=texts[0], structured={"samples": texts[: int(r.gen_kwargs.get("n", 1))]})
            )
        return out


def test_pass_at_k_reads_the_sampled_answers(virtual_root, tmp_path):
    Sampler.gen_seen = []
    out = _run(tmp_path, virtual_root, ["tempcloze_hard_passk"], "sampler", _with_model("sampler", Sampler))
    assert all(g["n"] == 5 and g["temperature"] == 0.7 for g in Sampler.gen_seen)
    res = out.results["task_results"]["tempcloze_hard_passk"]
    assert res["headline"] == "pass_at_1"
    for k in range(1, 6):
        assert res["metrics"][f"pass_at_{k}"]["value"] == pytest.approx(k / 5)
        assert res["tables"]["pass_at_k"]["overall"][f"pass@{k}"] == {
            "value": pytest.approx(k / 5),
            "n": 3 * N_VIDEOS,
        }
    assert res["tables"]["pass_at_k"]["valid_samples_per_item"] == {"5": 3 * N_VIDEOS}
    assert res["metrics"]["accuracy"]["value"] == 0.0  # the first sample is the headline answer of accuracy


def test_context_direction_shows_only_one_context_clip(virtual_root, tmp_path):
    out = _run(tmp_path, virtual_root, ["tempcloze_hard_beginning", "tempcloze_hard_end"], "oracle", limit=1)
    begin = _samples(out, "tempcloze_hard_beginning")[0]
    end = _samples(out, "tempcloze_hard_end")[0]
    assert [m["label"] for m in begin["media"]][:2] == ["[BEGINNING]", "[Candidate A]"]
    assert [m["label"] for m in end["media"]][:2] == ["[END]", "[Candidate A]"]
    assert (
        "directly follows the BEGINNING" in begin["prompt"] and "directly precedes the END" in end["prompt"]
    )


def test_sources_outside_the_dataset_root_are_counted_media_errors(tmp_path):
    from harness_builders.tempcloze.config import BuildConfig
    from harness_builders.tempcloze.pipeline import build_dataset
    from harness_builders.tempcloze.synthetic import make_source_folder

    make_source_folder(tmp_path / "sources", count=1, seconds=6.0, fps=10.0, seed=3)
    cfg = BuildConfig(virtual=True, sources="reference")  # clips point at sources outside the dataset
    build_dataset(tmp_path / "sources", tmp_path / "data" / "tempcloze", cfg, progress=False)
    out = _run(tmp_path, tmp_path / "data", ["tempcloze_semantic"], "oracle")
    res = out.results["task_results"]["tempcloze_semantic"]
    assert res["n_samples"] == 1 and res["errors"] == {"media": 1}
    assert "escapes the dataset folder" in _samples(out, "tempcloze_semantic")[0]["error"]["message"]
