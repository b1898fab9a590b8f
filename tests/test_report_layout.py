"""The report's layout facts, measured with matplotlib's own geometry and on the section objects: no legend
over data, every label inside the image, every bar series distinguishable, no empty table, row, column or
section, short row labels, truncated cells ending in an ellipsis."""

from __future__ import annotations

from harness.report import Cell, ReportSection, Table, plots
from harness.report.formatting import shorten
from harness.report.loading import merge_runs, unique_labels
from harness.report.pruning import prune_sections, prune_table

MODELS = [f"model_{i} (dtype=bfloat16)" for i in range(9)]  # nine rows, long names


def test_bars_near_the_top_keep_their_legend_off_the_data(figures):
    series = [(m, [0.99, 0.97, 0.5, 1.0], [(0.9, 1.0)] * 4) for m in MODELS]
    plots.bar_chart(["Semantic", "Alignment", "Progression", "Overall"], series, "accuracy", "%", chance=0.25)
    (fig,) = figures
    assert plots.layout_problems(fig) == []


def test_tier_lines_with_many_models_keep_labels_inside(figures):
    panels = [
        ("Object cycles (L1 → L3 → L4)", ["Uni (1)", "Bi (2)", "Tri (3)"], {m: [0.95, 0.8, 0.9] for m in MODELS}),
        ("Light cycles", ["no light (L1, L3, L4)", "light (L5)"], {m: [0.99, 0.97] for m in MODELS}),
    ]
    plots.tier_lines(panels, "scene-representative accuracy (%)")
    assert plots.layout_problems(figures[0]) == []


def test_stacked_shares_name_every_row_and_segment(figures):
    kinds = {"Semantic": ["Rand1", "Rand2", "Rand3"], "Alignment": ["Early", "Late", "Wide"],
             "Progression": ["Loop", "Reverse", "Shuffle"]}  # fmt: skip
    panels = [(d, MODELS, {k: [1 / 3] * len(MODELS) for k in ks}) for d, ks in kinds.items()]
    plots.stacked_shares(panels, "tempcloze_all: which distractor took the errors")
    fig = figures[0]
    assert plots.layout_problems(fig) == []
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == MODELS  # rows named by model
    assert [t.get_text() for t in fig.axes[2].get_legend().get_texts()] == kinds["Progression"]


def test_series_styles_stay_distinct_past_the_palette():
    styles = [plots.series_style(k) for k in range(len(plots.PALETTE) * 3)]
    assert len(set(styles)) == len(styles)


def test_the_layout_check_catches_a_legend_over_bars_and_a_cut_label(figures):
    plots.bar_chart(["a", "b"], [("x", [1.0, 1.0], [None, None]), ("y", [1.0, 1.0], [None, None])], "t", "%")
    fig = figures[0]
    ax = fig.axes[0]
    ax.legend(loc="center")  # the old layout: a legend inside the axes, over the bars
    ax.set_ylabel("Progression accuracy", labelpad=400)  # pushed out of the image
    problems = plots.layout_problems(fig)
    assert any("legend covers the bar" in p for p in problems)
    assert any("'Progression accuracy' is cut" in p for p in problems)


def test_empty_rows_columns_and_tables_are_left_out_and_named():
    table = Table("T", ["Uni", "Bi", "Tri"], note="band 0 to 100 %")
    table.add_row("oracle", [Cell(1.0), Cell(None), Cell(0.5)])
    table.add_row("random", [Cell(None), Cell(None), Cell(None)])
    pruned = prune_table(table)
    assert pruned.columns == ["Uni", "Tri"] and [label for label, _ in pruned.rows] == ["oracle"]
    assert pruned.note == "band 0 to 100 %. Columns without data left out: Bi. No data for: random."
    empty = Table("Table 5", ["a"], rows=[("oracle", [Cell(None)])])
    sections = prune_sections([ReportSection("S", "", [empty]), ReportSection("Nothing", "")])
    assert [s.title for s in sections] == ["S"] and sections[0].text == "No data (left out): Table 5."


def test_truncated_cells_end_in_an_ellipsis():
    text = '{"accuracy": 1.0, "parsed": "' + "x" * 300 + '"}'
    short = shorten(text, 120)
    assert len(short) == 120 and short.endswith("…")
    assert shorten("short", 120) == "short"


def _run(name: str, tasks: list[str], created: str, **config) -> dict:
    return {
        "model": {"name": name, "identity": {"args": config.pop("args", {})}},
        "config": {"seed": config.pop("seed", 0), "judge": None},
        "task_results": {t: {} for t in tasks},
        "created": created,
        "_label": name,
        "_source": f"/out/{name}/results_{created}.json",
        "_sources": [f"/out/{name}/results_{created}.json"],
        "_samples": {},
        **config,
    }


def test_row_labels_are_model_then_what_differs_never_file_names():
    runs = [
        _run("random", ["a"], "1", seed=0),
        _run("random", ["a"], "2", seed=1),
        _run("qwen", ["a"], "3", args={"dtype": "bfloat16", "device": "cuda"}),
        _run("qwen", ["a"], "4", args={"dtype": "float16", "device": "cuda"}),
        _run("oracle", ["a"], "5"),
        _run("oracle", ["a"], "6", rescored_from=["samples_a_5.jsonl"]),
        _run("prior", ["a"], "7"),
        _run("prior", ["a"], "8"),
    ]
    unique_labels(runs)
    assert [r["_label"] for r in runs] == [
        "random (seed=0)", "random (seed=1)", "qwen (dtype=bfloat16)", "qwen (dtype=float16)",
        "oracle", "oracle (rescored)", "prior (run 1)", "prior (run 2)",
    ]  # fmt: skip
    assert not any("results_" in r["_label"] for r in runs)


def test_runs_of_one_model_over_different_tasks_are_one_row():
    runs = [_run("oracle", ["cyclist_l1"], "1"), _run("oracle", ["tempcloze_all"], "2"), _run("random", ["x"], "3")]
    unique_labels(runs)
    merged = merge_runs(runs)
    assert [r["_label"] for r in merged] == ["oracle", "random"]
    assert set(merged[0]["task_results"]) == {"cyclist_l1", "tempcloze_all"} and len(merged[0]["_sources"]) == 2
