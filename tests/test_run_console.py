"""What a run shows: the console's summary and report command, `ls judges` listing every name `--judge`
takes, and `--judge rule` (the task's own rule judge) working as the docs say."""

from __future__ import annotations

import pytest

from conftest import PLUGIN_PKG
from harness.cli.main import main as cli_main
from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.errors import UnknownNameError
from harness.plugins.loading import load_plugins
from harness.plugins.registry import Entry
from harness.report import Cell, ReportSection, Table, task_result
from harness.report.console import run_summary

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


def _cfg(tmp_path, root, **kw) -> RunConfig:
    return RunConfig(tasks=["colors_qa"], model="oracle", data=root, output_path=tmp_path / "out",
                     log_samples=True, cache_dir=tmp_path / "cache", include_path=[str(TASKS_DIR)],
                     progress=False, **kw)  # fmt: skip


def test_ls_judges_lists_the_rule_judge_and_every_model(capsys):
    assert cli_main(["ls", "judges"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split()[0] for line in lines if line and not line.startswith("warning")]
    assert names[0] == "rule" and "no model is called" in lines[0]
    registry = load_plugins().registry
    assert set(registry.names("model")) | set(registry.names("judge")) <= set(names)


def test_judge_rule_is_the_tasks_own_judge(tmp_path, colors_root, with_plugin):
    state = load_plugins()
    plain = run(_cfg(tmp_path / "a", colors_root), state).results
    rule = run(_cfg(tmp_path / "b", colors_root, judge="rule"), state).results
    assert rule["config"]["judge"] is None  # comparable with a run without --judge
    assert rule["task_results"]["colors_qa"]["metrics"] == plain["task_results"]["colors_qa"]["metrics"]
    with pytest.raises(UnknownNameError, match="did you mean 'rule'"):
        run(_cfg(tmp_path / "c", colors_root, judge="rulez"), state)


def _headline_renderer(runs):
    table = Table("colors: paper table", ["accuracy", "never filled"], headline=True)
    other = Table("colors: detail", ["accuracy"])
    for r in runs:
        m = task_result(r, "colors_qa")["metrics"]["accuracy"]
        table.add_row(r["_label"], [Cell(m["value"], tuple(m["ci"]), chance=0.2), Cell(None)])
        other.add_row(r["_label"], [Cell(m["value"])])
    return [ReportSection("Colours", "", [table, other])]


def test_the_console_shows_the_headline_paper_tables_and_the_report_command(tmp_path, colors_root, with_plugin):
    state = load_plugins()
    state.registry.add(Entry("report", "colors", _headline_renderer, plugin="test"))
    out = run(_cfg(tmp_path, colors_root), state)
    text = run_summary(out.results, out.records, state.registry, out.results_path)
    assert "| colors_qa | accuracy | 1.0000 |" in text  # the summary
    assert "**colors: paper table**" in text and "| oracle | 100.0 [100.0, 100.0] |" in text
    assert "never filled" not in text.split("**colors: paper table**")[1].splitlines()[2]  # empty column left out
    assert "colors: detail" not in text  # only headline tables; the rest is in the report
    assert text.rstrip().endswith(f"python -m harness report {out.results_path} --out {out.results_path.parent / 'report'}")


def test_the_cli_prints_the_summary_and_the_report_command(tmp_path, colors_root, with_plugin, capsys):
    code = cli_main(["--tasks", "colors_qa", "--model", "oracle", "--data", str(colors_root), "--output_path",
                     str(tmp_path / "out"), "--cache_dir", str(tmp_path / "cache"), "--no_progress"])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "| colors_qa | accuracy | 1.0000 |" in printed and "python -m harness report " in printed
