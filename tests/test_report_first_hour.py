"""The report a new user reads first: every task in the headline chart, one scale per table, the group
values the console prints, frame specs as people write them, and a subset described by its real size."""

from __future__ import annotations

from harness.report import plots
from harness.report.console import summary_table
from harness.report.generic import groups_table, overview_section, task_section

SPEC = {"version": 1, "strategy": "uniform", "count": 32, "max_side": 448, "decoder": "auto", "trim": 0,
        "rate": None, "max_frames": None, "max_height": None}


def _metric(value, n=10):
    return {"value": value, "n": n, "ci": [value - 0.05, value + 0.05]}


def _task(head, value, **more):
    metrics = {head: _metric(value), **{k: _metric(v) for k, v in more.items()}}
    return {"headline": head, "metrics": metrics, "breakdowns": {}, "n_rows": 30, "n_samples": 30, "n_scored": 30,
            "n_errors": 0, "n_invalid": 0, "n_dropped": 0, "coverage": 1.0}


def _run(label="random"):
    group = {"metrics": {"IoU": {"value": 0.0, "n": 10}, "ROUGE-L": {"value": 0.2223, "n": 20}}, "n_rows": 30}
    samples = [{"doc_id": f"d{i}", "doc": {"video": f"v{i // 3}"}, "scores": {"accuracy": 1.0}} for i in range(30)]
    return {
        "_label": label, "_source": f"/x/{label}/results.json",
        "task_results": {"cyclist_l1": _task("accuracy", 0.519), "rvtbench_vqa": _task("ROUGE-L", 0.102),
                         "rvtbench_grounding": _task("IoU", 0.0), "tempcloze_hard": _task("accuracy", 0.3, mae=2.5)},
        "group_results": {"rvtbench": group},
        "config": {"tasks": {t: {"effective_frame_spec": SPEC, "config": {"cluster_field": "video", "version": 1}}
                             for t in ("cyclist_l1", "rvtbench_vqa", "rvtbench_grounding", "tempcloze_hard")}},
        "_samples": {"tempcloze_hard": samples},
    }


def test_every_task_is_in_the_headline_chart_on_the_tables_one_scale(monkeypatch):
    charted = []
    real = plots.bar_chart
    monkeypatch.setattr(plots, "bar_chart", lambda cats, *a, **k: charted.append((list(cats), k)) or real(cats, *a, **k))
    section = overview_section([_run()])
    assert charted[0][0] == ["cyclist_l1", "rvtbench_grounding", "rvtbench_vqa", "tempcloze_hard"]
    headline = next(t for t in section.tables if t.title == "Headline metrics")
    assert {c.fmt for _, cells in headline.rows for c in cells} == {"pct"}  # accuracy, IoU and ROUGE-L alike


def test_a_table_with_a_non_fraction_metric_shows_every_column_as_is():
    section = task_section([_run()], "tempcloze_hard")
    metrics = section.tables[0]
    assert metrics.columns[:2] == ["accuracy", "mae"]
    fmts = {c.fmt for _, cells in metrics.rows for c in cells[:2]}
    assert fmts == {"num"}, fmts  # mae is no fraction: accuracy is not printed in percent beside it


def test_groups_show_every_metric_the_console_prints():
    run = _run()
    table = groups_table([run])
    assert table.columns == ["rvtbench (IoU)", "rvtbench (ROUGE-L)"]
    assert table.cell("random", "rvtbench (ROUGE-L)").value == 0.2223
    assert "| rvtbench (group) | ROUGE-L | 0.2223" in summary_table(run)


def test_frame_specs_and_subset_sizes_read_as_people_write_them():
    text = task_section([_run()], "tempcloze_hard").text
    assert "frames: uniform, 32 frames, max side 448." in text and "{" not in text
    assert "Evaluated on 30 rows from 10 distinct `video` values." in text
