"""Reports, compare and leaderboard on results of the baselines (oracle, random, a scripted model) over
small built sets: the core test plugin's colours set, a CycliST L1 set and a TempCloze set."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import PLUGIN_PKG
from harness.cli.main import main as cli_main
from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.errors import EXIT_REGRESSION, ConfigError
from harness.frames import FrameSpec
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry, Registry
from harness.report import ReportSection, load_runs, plots
from harness.report.compare import compare_runs
from harness.report.console import run_summary
from harness.report.engine import build_report, write_report
from harness.report.leaderboard import LeaderboardMismatchError, build_leaderboard, render_leaderboard
from harness.report.markdown_writer import column_chance

COLORS_TASKS = PLUGIN_PKG / "harness_colors" / "tasks"
COLOR_RUNS = {  # name -> (model, run kwargs)
    "oracle": ("oracle", {}),
    "random1": ("random", {"seed": 1}),
    "random2": ("random", {"seed": 2}),
    "scripted": ("counting", {"model_args": {"wrong_every": 2}}),  # wrong on about half the docs
    "oracle_rerun": ("oracle", {}),
    "prior": ("prior", {}),
    "frames4": ("counting", {"frames": FrameSpec(strategy="uniform", count=4)}),
}


def make_color_runs(root: Path, data: Path) -> dict[str, Path]:
    """Run the baselines on the colours set; name -> results file."""
    sys.path.insert(0, str(PLUGIN_PKG))
    try:
        state = load_plugins(modules=["harness_colors.plugin"])
        out = {}
        for name, (model, kw) in COLOR_RUNS.items():
            cfg = RunConfig(tasks=["colors_qa", "colors_qa_color"], model=model, data=data,
                            output_path=root / name, log_samples=True, cache_dir=root / "cache",
                            include_path=[str(COLORS_TASKS)], progress=False, **kw)  # fmt: skip
            out[name] = run(cfg, state).results_path
        return out
    finally:
        sys.path.remove(str(PLUGIN_PKG))


@pytest.fixture(scope="module")
def color_runs(tmp_path_factory, colors_root) -> dict[str, Path]:
    return make_color_runs(tmp_path_factory.mktemp("color_runs"), colors_root)


def _results(path: Path) -> dict:
    return json.loads(path.read_text())


# ---------------------------------------------------------------- report


def test_report_tables_match_results_json(color_runs, colors_root, tmp_path):
    paths = [color_runs[k] for k in ("oracle", "random1", "scripted")]
    runs = load_runs(paths)
    sections = build_report(runs, Registry(), colors_root, n_samples=2)
    overview = next(t for t in sections[0].tables if t.title == "Headline metrics")
    for path, run_ in zip(paths, runs, strict=True):
        res = _results(path)["task_results"]
        for task in ("colors_qa", "colors_qa_color"):
            cell = overview.cell(run_["_label"], f"{task} (accuracy)")
            assert cell.value == res[task]["metrics"]["accuracy"]["value"]
            assert list(cell.ci) == res[task]["metrics"]["accuracy"]["ci"]
        by_family = next(t for s in sections for t in s.tables if t.title == "colors_qa: accuracy by family")
        for fam in ("color", "direction"):
            want = res["colors_qa"]["breakdowns"]["family"][fam]["accuracy"]
            cell = by_family.cell(run_["_label"], fam)
            assert (cell.value, cell.n) == (want["value"], want["n"])
            assert cell.ci[0] <= cell.value <= cell.ci[1]
    files = write_report(sections, tmp_path / "rep")
    md = files.markdown.read_text()
    assert "| oracle | 100.0 [100.0, 100.0] | 100.0 [100.0, 100.0] |" in md
    assert files.html.read_text().count("<table>") == sum(len(s.tables) for s in sections)
    assert files.figures and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in files.figures)


def test_sample_viewer_shows_the_frames_the_model_saw(color_runs, colors_root, tmp_path):
    from matplotlib.image import imread

    runs = load_runs([color_runs["scripted"], color_runs["oracle"]])
    sections = build_report(runs, Registry(), colors_root, n_samples=2)
    samples = [s for s in sections if s.key.startswith("sample-colors_qa-")]
    assert len(samples) == 2
    first = samples[0]
    rec = next(r for r in runs[0]["_samples"]["colors_qa"] if first.title.endswith(str(r["doc_id"])))
    assert rec["scores"]["accuracy"] == 0.0  # wrong answers come first
    assert f"```\n{rec['raw']}\n```" in first.text and rec["target"] in first.text
    strip = imread(__import__("io").BytesIO(first.figures[0].data()))
    n = len(rec["media"][0]["indices"])
    assert n == 8 and strip.shape[1] == 8 * 64 + 7 * 3  # eight 64-px frames and 3-px gaps
    answers = first.tables[0]
    assert [label for label, _ in answers.rows] == ["counting", "oracle"]
    without = build_report(runs, Registry(), None, n_samples=1)
    note = next(s for s in without if s.key.startswith("sample-colors_qa-"))
    assert not note.figures and "not shown: no --data given" in note.text


def test_report_cli_writes_files_and_names_bad_input(color_runs, tmp_path):
    out = tmp_path / "cli"
    assert cli_main(["report", str(color_runs["oracle"]), str(color_runs["random1"]), "--out", str(out)]) == 0
    assert {"report.md", "report.html"} <= {p.name for p in out.iterdir()}
    assert "random" in (out / "report.md").read_text()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli_main(["report", str(bad), "--out", str(out)]) == 2
    assert cli_main(["report", str(tmp_path / "missing.json"), "--out", str(out)]) == 2


def test_a_failing_renderer_is_reported_by_name(color_runs):
    reg = Registry()
    reg.add(Entry("report", "broken", "json:no_such_function", plugin="bad_plugin"))
    reg.add(Entry("report", "fine", lambda runs: [ReportSection("Fine part", "ok")], plugin="good"))
    sections = build_report(load_runs([color_runs["oracle"]]), reg, None, 0)
    titles = [s.title for s in sections]
    assert "broken: renderer failed" in titles and "Fine part" in titles


# ---------------------------------------------------------------- compare


def test_compare_flags_a_planted_regression(color_runs, tmp_path):
    base, new = load_runs([color_runs["oracle"], color_runs["scripted"]])
    cmp = compare_runs(base, new)
    reg = {(d.task, d.metric) for d in cmp.regressions()}
    assert reg == {("colors_qa", "accuracy"), ("colors_qa_color", "accuracy")}
    d = next(d for d in cmp.deltas if d.task == "colors_qa")
    drop = _results(color_runs["scripted"])["task_results"]["colors_qa"]["metrics"]["accuracy"]["value"] - 1.0
    assert d.paired and d.n_pairs == 24 and d.delta == pytest.approx(drop) and d.ci[1] < 0
    rc = cli_main(
        ["compare", str(color_runs["oracle"]), str(color_runs["scripted"]), "--out", str(tmp_path / "c.json")]
    )
    assert rc == EXIT_REGRESSION
    assert json.loads((tmp_path / "c.json").read_text())["regression"] is True
    # a threshold larger than the drop lets it pass; the reverse direction is an improvement
    assert (
        cli_main(
            ["compare", str(color_runs["oracle"]), str(color_runs["scripted"]), "--threshold", "accuracy=0.6"]
        )
        == 0
    )
    assert cli_main(["compare", str(color_runs["scripted"]), str(color_runs["oracle"])]) == 0


def test_compare_passes_noise_and_identical_reruns(color_runs):
    seeds = compare_runs(*load_runs([color_runs["random1"], color_runs["random2"]]))
    assert not seeds.regressions() and all(
        d.ci[0] < 0 < d.ci[1] for d in seeds.deltas if d.metric == "accuracy"
    )
    again = compare_runs(*load_runs([color_runs["oracle"], color_runs["oracle_rerun"]]))
    assert not again.regressions() and all(d.delta == 0 and d.ci == (0.0, 0.0) for d in again.deltas)
    assert cli_main(["compare", str(color_runs["random1"]), str(color_runs["random2"])]) == 0


def test_compare_without_samples_is_unpaired_and_mismatches_are_refused(color_runs, tmp_path):
    for name in ("oracle", "scripted"):
        shutil.copy(color_runs[name], tmp_path / f"results_{name}.json")
    base, new = load_runs([tmp_path / "results_oracle.json", tmp_path / "results_scripted.json"])
    cmp = compare_runs(base, new)
    assert all(not d.paired for d in cmp.deltas) and cmp.regressions()
    assert any("frame_spec_digest differs" in n for n in cmp.notes)  # model frame budgets: noted only
    v2 = _edited_copy(color_runs["oracle"], tmp_path / "results_v2.json",
                      lambda d: d["config"]["tasks"]["colors_qa"].update(version=2))  # fmt: skip
    assert cli_main(["compare", str(color_runs["oracle"]), str(v2)]) == 2
    assert cli_main(["compare", str(color_runs["oracle"]), str(v2), "--allow_mismatch"]) == 0


# ---------------------------------------------------------------- leaderboard


def test_leaderboard_ranks_matching_runs(color_runs, tmp_path):
    names = ("random1", "prior", "oracle")
    runs = load_runs([color_runs[k] for k in names], with_samples=False)
    board = build_leaderboard(runs)
    scores = {}
    for k in names:
        res = _results(color_runs[k])["task_results"]
        scores[k] = (
            res["colors_qa"]["metrics"]["accuracy"]["value"]
            + res["colors_qa_color"]["metrics"]["accuracy"]["value"]
        ) / 2
    assert [e.score for e in board.entries] == pytest.approx(sorted(scores.values(), reverse=True))
    assert board.entries[0].model == "oracle" and board.entries[0].rank == 1
    assert [e.rank for e in board.entries] == sorted(e.rank for e in board.entries)
    for ext in ("md", "csv", "json"):
        out = tmp_path / f"board.{ext}"
        assert (
            cli_main(["leaderboard", *(str(color_runs[k]) for k in ("random1", "oracle")), "--out", str(out)])
            == 0
        )
        assert "oracle" in out.read_text()
    assert json.loads((tmp_path / "board.json").read_text())["entries"][0]["model"] == "oracle"
    with pytest.raises(ConfigError, match="unknown extension"):
        render_leaderboard(board, tmp_path / "board.txt")


def _edited_copy(src: Path, dst: Path, edit) -> Path:
    data = json.loads(src.read_text())
    edit(data)
    dst.write_text(json.dumps(data))
    return dst


def test_leaderboard_refuses_mismatched_versions_frame_specs_and_judges(color_runs, tmp_path):
    v2 = _edited_copy(color_runs["random1"], tmp_path / "results_v2.json",
                      lambda d: d["config"]["tasks"]["colors_qa"].update(version=2))  # fmt: skip
    with pytest.raises(LeaderboardMismatchError) as err:
        build_leaderboard(load_runs([color_runs["oracle"], v2], with_samples=False))
    msg = str(err.value)
    assert (
        "task colors_qa: version differs" in msg
        and "results_v2.json" in msg
        and str(color_runs["oracle"]) in msg
    )
    # restricted to the task whose version agrees, the same runs rank
    assert build_leaderboard(load_runs([color_runs["oracle"], v2], with_samples=False), ["colors_qa_color"])
    with pytest.raises(LeaderboardMismatchError, match="frame_spec_digest differs"):
        build_leaderboard(load_runs([color_runs["scripted"], color_runs["frames4"]], with_samples=False))
    judged = _edited_copy(
        color_runs["random1"],
        tmp_path / "results_judged.json",
        lambda d: d["config"].update(judge={"name": "j", "identity": {}, "prompt_hashes": {"a": "1"}}),
    )
    with pytest.raises(LeaderboardMismatchError, match="judge differs"):
        build_leaderboard(load_runs([color_runs["oracle"], judged], with_samples=False))
    assert cli_main(["leaderboard", str(color_runs["oracle"]), str(v2), "--out", str(tmp_path / "b.md")]) == 2


# ---------------------------------------------------------------- benchmarks


def _harness(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "harness", *args], check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def cyclist_runs(tmp_path_factory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("cyc")
    _harness("build", "cyclist", "--tier", "L1", "--split", "test", "--num-scenes", "4", "--frames", "32",
             "--size", "64x36", "--out", str(root / "cyclist"), "--no_progress")  # fmt: skip
    paths = []
    for model, seed in (("oracle", 0), ("random", 1)):
        cfg = RunConfig(tasks=["cyclist_l1", "cyclist_caption_l1"], model=model, data=root, seed=seed,
                        output_path=root / "out", log_samples=True, cache_dir=root / "cache", progress=False)  # fmt: skip
        paths.append(run(cfg).results_path)
    return root, paths


def _layout_facts(sections, figures) -> None:
    """Every figure clean (no legend over data, labels inside, series distinct); chance levels stated once:
    a table whose header shows a column's chance does not restate a number in its note."""
    assert figures and all(plots.layout_problems(f) == [] for f in figures)
    for table in (t for s in sections for t in s.tables):
        if any(column_chance(table, i) for i in range(len(table.columns))):
            assert not re.search(r"chance (about )?\d", table.note), (table.title, table.note)


def test_cyclist_paper_tables_and_fig8(cyclist_runs, tmp_path, figures):
    data, paths = cyclist_runs
    runs = load_runs(paths)
    sections = build_report(runs, load_plugins().registry, data, 1)
    tables = {t.title: t for s in sections for t in s.tables}
    t4 = tables["Table 4 (∃): temporal descriptive accuracy (%)"]
    for path, r in zip(paths, runs, strict=True):
        cells = _results(path)["task_results"]["cyclist_l1"]["tables"]["table4_temporal_descriptive"][
            "existential"
        ]
        got = t4.cell(r["_label"], "Unicycle query")
        assert (got.value, got.chance) == (cells["query"]["accuracy"], cells["query"]["chance"])
        t8 = _results(path)["task_results"]["cyclist_l1"]["tables"]["table8_counting"]
        assert tables["Table 8: counting object cycles"].cell(r["_label"], "MAE Unicycle").value == t8["mae"]
        t11 = _results(path)["task_results"]["cyclist_caption_l1"]["tables"]["table11_objects"]
        assert (
            tables["Table 11: scene captioning, objects (%)"].cell(r["_label"], "Unicycle F1").value
            == t11["f1"]
        )
    assert t4.cell("oracle", "Unicycle query").value == 1.0
    assert "Bicycle query" not in t4.columns  # tier not evaluated: the column is left out, and said so
    assert "Columns without data left out: Bicycle query" in t4.note
    fig = next(f for s in sections for f in s.figures if f.name == "fig8_tiers.png")
    assert fig.data()[:4] == b"\x89PNG"
    _layout_facts(sections, figures)
    t6 = tables["Table 6: orbits (%)"]  # one chance per column, from the questions evaluated; none in the note
    assert column_chance(t6, t6.columns.index("Center Unicycle")) and "%" not in t6.note.split(".")[0]


@pytest.fixture(scope="module")
def tempcloze_runs(tmp_path_factory) -> tuple[Path, list[Path]]:
    from harness_builders.tempcloze.config import BuildConfig
    from harness_builders.tempcloze.pipeline import build_dataset
    from harness_builders.tempcloze.synthetic import make_source_folder

    root = tmp_path_factory.mktemp("tc")
    make_source_folder(root / "src", count=4, seconds=6.0, fps=10.0, seed=1)
    build_dataset(root / "src", root / "tempcloze", BuildConfig(seed=0, virtual=False), progress=False)
    paths = []
    for model, seed in (("oracle", 0), ("random", 1)):
        cfg = RunConfig(tasks=["tempcloze_all"], model=model, data=root, seed=seed, output_path=root / "out",
                        log_samples=True, cache_dir=root / "cache", progress=False)  # fmt: skip
        paths.append(run(cfg).results_path)
    return root, paths


def test_tempcloze_dimension_joint_and_error_tables(tempcloze_runs, figures):
    data, paths = tempcloze_runs
    runs = load_runs(paths)
    sections = build_report(runs, load_plugins().registry, data, 1)
    tables = {t.title: t for s in sections for t in s.tables}
    dims = tables["tempcloze_all: accuracy by dimension (%)"]
    joint = tables["tempcloze_all: joint per-video accuracy (%)"]
    for path, r in zip(paths, runs, strict=True):
        tb = _results(path)["task_results"]["tempcloze_all"]["tables"]
        for d, name in (("S", "Semantic"), ("A", "Alignment"), ("P", "Progression")):
            cell = dims.cell(r["_label"], name)
            assert (cell.value, cell.chance) == (tb["per_dimension"][d]["accuracy"], 0.25)
        assert dims.cell(r["_label"], "Overall").value == tb["overall"]["accuracy"]
        assert joint.cell(r["_label"], "3/3").value == tb["joint"]["all_3"]["value"]
        assert joint.cell(r["_label"], "3/3").chance == tb["chance"]["all_3"]
    errors = tables["tempcloze_all: error sources (% of the dimension's wrong answers)"]
    assert "Alig. Early" in errors.columns
    names = {f.name for s in sections for f in s.figures}
    assert {"tempcloze_all_dimensions.png", "tempcloze_all_error_sources.png"} <= names
    by_dim = tables["tempcloze_all: accuracy by dimension"]  # the generic per-task table: S/A/P too
    assert by_dim.columns == ["Semantic", "Alignment", "Progression"]
    _layout_facts(sections, figures)
    console = run_summary(runs[1], runs[1]["_samples"], load_plugins().registry, paths[1])
    assert "**tempcloze_all: accuracy by dimension (%)**" in console and "| random |" in console
    assert f"python -m harness report {paths[1]}" in console
    strips = [f for s in sections if s.key.startswith("sample-tempcloze_all") for f in s.figures]
    assert strips and all(np.frombuffer(f.data()[:4], np.uint8).tolist() == [137, 80, 78, 71] for f in strips)


@pytest.fixture(scope="module")
def rvtbench_runs(tmp_path_factory) -> list[Path]:
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    root = tmp_path_factory.mktemp("rvt")
    (ds,) = RvtbenchBuilder().demo(root / "data", 0)
    paths = []
    for model, seed in (("oracle", 0), ("random", 1)):
        cfg = RunConfig(tasks=["rvtbench_seg", "rvtbench_grounding"], model=model, data=ds.data_dir, seed=seed,
                        output_path=root / "out", log_samples=True, cache_dir=root / "cache", progress=False)  # fmt: skip
        paths.append(run(cfg).results_path)
    return paths


def test_rvtbench_category_level_tables_and_level_plots(rvtbench_runs, figures):
    runs = load_runs(rvtbench_runs)
    sections = build_report(runs, load_plugins().registry, None, 0)
    tables = {t.title: t for s in sections for t in s.tables}
    for path, r in zip(rvtbench_runs, runs, strict=True):
        for task, metric in (("rvtbench_grounding", "cIoU"), ("rvtbench_seg", "J&F")):
            cells = _results(path)["task_results"][task]["tables"]["by_category_level"]
            table = tables[f"{task}: {metric} (%)"]
            if r["_label"] not in [label for label, _ in table.rows]:  # no value at all: row left out, said so
                assert all(c.get(metric) is None for c in cells.values())
                assert f"No data for: {r['_label']}" in table.note
                continue
            assert table.cell(r["_label"], "Overall").value == cells["overall"][metric]
            l4 = (cells.get("temporal|L4") or {}).get(metric)
            if "Temporal L4" in table.columns:
                assert table.cell(r["_label"], "Temporal L4").value == l4
            else:  # no run has a temporal L4 sample: the column is left out
                assert l4 is None and "Temporal L4" in table.note
    names = {f.name for s in sections for f in s.figures}
    assert {"rvtbench_seg_JandF_by_level.png", "rvtbench_grounding_cIoU_by_level.png"} <= names
    _layout_facts(sections, figures)
