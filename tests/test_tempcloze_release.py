"""TempCloze as released: the release's subset folders, the frame-density group, per-source tables
(Appendix E), one label per clip, the public key "C" for Progression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tempcloze_helpers import build_tempcloze, run_tasks, samples

from harness.api import Capabilities, Model, Response, TextPart, VideoPart
from harness.cli.main import main
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry


@pytest.fixture(scope="module")
def release_root(tmp_path_factory) -> Path:
    """Builder-made items laid out as the release: subset_ids.json in subset/, mixed_ids.json in mixed/."""
    root = build_tempcloze(tmp_path_factory.mktemp("tc_release"), 4, virtual=True)
    data = root / "tempcloze"
    for name, sub in (("subset_ids.json", "subset"), ("mixed_ids.json", "mixed")):
        (data / sub).mkdir()
        shutil.move(str(data / name), str(data / sub / name))
    return root


def test_mixed_and_hard_run_on_a_folder_laid_out_as_the_release(release_root, tmp_path):
    out = tmp_path / "out"
    argv = ["--tasks", "tempcloze_mixed,tempcloze_hard", "--model", "oracle", "--data", str(release_root)]
    code = main([*argv, "--output_path", str(out), "--cache_dir", str(tmp_path / "cache")])
    assert code == 0
    [path] = (out / "oracle").glob("results_*.json")
    results = json.loads(path.read_text())["task_results"]
    stems = json.loads((release_root / "tempcloze/subset/subset_ids.json").read_text())
    assert results["tempcloze_hard"]["n_samples"] == 3 * len(stems)
    assert results["tempcloze_mixed"]["n_samples"] == len(
        json.loads((release_root / "tempcloze/mixed/mixed_ids.json").read_text())
    )
    assert all(r["metrics"]["accuracy"]["value"] == 1.0 for r in results.values())


def test_a_missing_subset_file_names_every_place_it_was_looked_for_and_how_to_make_it(tmp_path, capsys):
    root = build_tempcloze(tmp_path, 2, virtual=True)
    (root / "tempcloze" / "subset_ids.json").unlink()
    code = main(["--tasks", "tempcloze_hard", "--model", "oracle", "--data", str(root),
                 "--cache_dir", str(tmp_path / "cache")])  # fmt: skip
    err = capsys.readouterr().err
    assert (
        code == 2
        and "looked for subset_ids.json, TempCloze/subset/subset_ids.json, subset/subset_ids.json" in err
    )
    assert "build tempcloze-hard --results" in err and "run tempcloze_all" in err


def test_frame_density_group_runs_8_12_16_and_20_frames(release_root, tmp_path):
    out = run_tasks(tmp_path, release_root, ["tempcloze_hard_frames"], "tempcloze_edge")
    tasks = out.results["config"]["tasks"]
    counts = {t: tasks[t]["effective_frame_spec"]["count"] for t in tasks}
    assert counts == {
        "tempcloze_hard_frames8": 8,
        "tempcloze_hard_frames12": 12,
        "tempcloze_hard_frames16": 16,
        "tempcloze_hard_frames20": 20,
    }
    assert set(out.results["group_results"]["tempcloze_hard_frames"]["tasks"]) == set(counts)
    density = out.results["group_results"]["tempcloze_hard_frames"]["tables"]["frame_density"]
    assert density["counts"] == ["8", "12", "16", "20"]
    for n, task in zip(density["counts"], counts, strict=True):
        per = out.results["task_results"][task]["tables"]["per_dimension"]
        assert density["by_count"][n]["task"] == task
        assert density["by_count"][n]["A"]["accuracy"] == per["A"]["accuracy"]
    assert main(["report", str(out.results_path), "--out", str(tmp_path / "report")]) == 0
    md = next((tmp_path / "report").glob("*.md")).read_text()
    assert "tempcloze_hard_frames: accuracy by frames per clip (%)" in md and "| 20 frames (chance" in md
    for task, n in counts.items():
        for rec in samples(out, task):
            shown = [len(m["indices"]) for m in rec["media"]]
            # the public sampler: min(N, frames - 2) per clip; the context clips here are long enough
            assert max(shown) == n and all(k <= n for k in shown), (task, shown)


def test_items_carry_their_source_and_results_and_reports_get_a_per_source_table(tmp_path):
    from harness_builders.tempcloze.config import BuildConfig
    from harness_builders.tempcloze.pipeline import build_dataset
    from harness_builders.tempcloze.synthetic import make_source_folder

    videos, data = tmp_path / "videos", tmp_path / "d" / "tempcloze"
    make_source_folder(videos / "MiraData", count=2, seconds=6.0, fps=10.0, seed=1)
    make_source_folder(videos / "EgoLife", count=1, seconds=6.0, fps=10.0, seed=2)
    (videos / "EgoLife" / "vid00.mp4").rename(videos / "EgoLife" / "ego00.mp4")
    manifest = build_dataset(videos, data, BuildConfig(seed=0, virtual=True), progress=False)
    assert manifest["sources"] == {"MiraData": 2, "EgoLife": 1}
    assert json.loads((data / "choices/ego00/clips.json").read_text())["source_dataset"] == "EgoLife"
    out = run_tasks(tmp_path, tmp_path / "d", ["tempcloze_all"], "oracle")
    table = out.results["task_results"]["tempcloze_all"]["tables"]["by_source"]
    assert table["sources"] == ["EgoLife", "MiraData"]
    mira = table["by_source"]["MiraData"]
    assert {d: c["n_items"] for d, c in mira["per_dimension"].items()} == {"S": 2, "A": 2, "P": 2}
    assert mira["mean_over_dimensions"]["accuracy"] == 1.0 and mira["joint"]["all_3"]["value"] == 1.0
    assert table["by_source"]["EgoLife"]["joint"]["n_videos"] == 1
    code = main(["report", str(out.results_path), "--out", str(tmp_path / "report")])
    assert code == 0
    md = next((tmp_path / "report").glob("*.md")).read_text()
    assert "tempcloze_all: statistics by source (%)" in md and "oracle · EgoLife" in md


def test_source_name_from_flag_subfolder_or_folder(tmp_path):
    from harness_builders.tempcloze.pipeline import source_name

    assert source_name(tmp_path / "Video-TT" / "a.mp4", tmp_path) == "Video-TT"
    assert source_name(tmp_path / "a.mp4", tmp_path) == tmp_path.name
    assert source_name(tmp_path / "Video-TT" / "a.mp4", tmp_path, "Daily-Omni") == "Daily-Omni"


def test_build_flag_source_names_every_item_and_leaves_sources_alone():
    import argparse

    from harness_builders.tempcloze.config import add_build_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_build_arguments(parser)
    cfg = config_from_args(parser.parse_args(["--source", "Daily-Omni", "--sources", "copy"]))
    assert cfg.source == "Daily-Omni" and cfg.sources == "copy"
    assert config_from_args(parser.parse_args([])).source is None


def test_a_release_gets_its_sources_from_sources_json(release_root, tmp_path):
    data = release_root / "tempcloze"
    stems = sorted(p.name for p in (data / "choices").iterdir())
    for stem in stems:  # a release's items carry no source of their own
        doc = json.loads((data / "choices" / stem / "clips.json").read_text())
        doc.pop("source_dataset", None)
        (data / "choices" / stem / "clips.json").write_text(json.dumps(doc))
    (data / "sources.json").write_text(
        json.dumps({s: ("LVD-2M" if i % 2 else "FAVOR-Bench") for i, s in enumerate(stems)})
    )
    try:
        out = run_tasks(tmp_path, release_root, ["tempcloze_all"], "oracle")
    finally:
        (data / "sources.json").unlink()
    assert out.results["task_results"]["tempcloze_all"]["tables"]["by_source"]["sources"] == [
        "FAVOR-Bench",
        "LVD-2M",
    ]


class Recorder(Model):
    """Keeps the decoded requests it gets."""

    name = "recorder"
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=64)
    seen: list = []

    def generate(self, requests):
        Recorder.seen.extend(requests)
        return [Response(text='{"answer": "A", "reason": "r"}') for _ in requests]


def test_each_clip_label_reaches_the_model_once_as_in_the_public_prompt(release_root, tmp_path):
    from harness_models.openai_api.encoding import to_messages

    state = load_plugins()
    state.registry.add(Entry("model", "recorder", Recorder, plugin="tests"))
    Recorder.seen = []
    run_tasks(tmp_path, release_root, ["tempcloze_semantic"], "recorder", state, limit=1)
    [request] = Recorder.seen
    labels = ["[BEGINNING]", "[END]"] + [f"[Candidate {c}]" for c in "ABCD"]
    parts = request.messages[0].content
    assert [p.label for p in parts if isinstance(p, VideoPart)] == labels
    assert not any(isinstance(p, TextPart) and p.text in labels for p in parts)  # the part's label owns it
    content = to_messages(request)[0]["content"]
    texts = [c["text"] for c in content if c["type"] == "text"]
    assert texts[1:] == labels  # the prompt, then each label once, exactly as the public eval.py writes it
    for label in labels:
        i = next(k for k, c in enumerate(content) if c.get("text") == label)
        assert content[i + 1]["type"] == "image_url"


def test_dimension_key_c_counts_as_progression_in_every_table(release_root, tmp_path):
    out = run_tasks(tmp_path, release_root, ["tempcloze_all"], "oracle")
    path = out.samples_paths["tempcloze_all"]
    recs = samples(out, "tempcloze_all")
    for r in recs:
        if r["doc"]["dimension"] == "P":
            r["doc"]["dimension"] = "C"  # as the public files key Progression
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    code = main(["--rescore", str(path), "--output_path", str(tmp_path / "re")])
    assert code == 0
    [res] = (tmp_path / "re").glob("results_rescored_*.json")
    tables = json.loads(res.read_text())["task_results"]["tempcloze_all"]["tables"]
    n = len(recs) // 3
    assert tables["per_dimension"]["P"]["n_items"] == n and tables["joint"]["n_videos"] == n
    assert tables["mean_over_dimensions"]["n_dimensions"] == 3


class SecondTry(Model):
    """Unparsable first reply, a valid one after: per request as many replies as generation `n` asks."""

    name = "second_try"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=1)

    def generate(self, requests):
        out = []
        for r in requests:
            n = int(r.gen_kwargs.get("n", 1))
            replies = ["Let me look at the clips again."] + [json.dumps({"answer": "A", "reason": "r"})] * (
                n - 1
            )
            out.append(Response(text=replies[0], structured={"samples": replies} if n > 1 else None))
        return out


def test_the_public_retry_protocol_is_a_task_option_recorded_in_the_results(release_root, tmp_path):
    state = load_plugins()
    state.registry.add(Entry("model", "second_try", SecondTry, plugin="tests"))
    out = run_tasks(tmp_path, release_root, ["tempcloze_all", "tempcloze_all_retry3"], "second_try", state)
    once, retry = (out.results["task_results"][t] for t in ("tempcloze_all", "tempcloze_all_retry3"))
    n = once["n_samples"]
    # one request (the default): the unparsable reply is invalid; three attempts: the second reply counts
    assert once["tables"]["counts"]["n_invalid"] == n and once["tables"]["protocol"]["attempts"] == 1
    assert retry["tables"]["counts"]["n_invalid"] == 0
    assert retry["tables"]["protocol"] == {
        **retry["tables"]["protocol"],
        "attempts": 3,
        "answered_at_attempt": {"2": n},
    }
    cfg = out.results["config"]["tasks"]["tempcloze_all_retry3"]["config"]
    assert cfg["dataset"]["options"]["attempts"] == 3 and cfg["generation"]["n"] == 3
    recs = samples(out, "tempcloze_all_retry3")
    assert all(r["parsed"]["extra"]["attempt"] == 2 for r in recs)
