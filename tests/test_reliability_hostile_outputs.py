"""Every output escapes what the harness did not write: hostile model names, task names and model outputs
(tests/hostile/names.json) show as text in leaderboard.md/.csv, report.md/.html and on the terminal; none
becomes markup, a spreadsheet formula or a terminal control sequence."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from test_reliability_pipeline import _cfg

from conftest import harness_env, run_harness
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.report.escaping import CSV_FORMULA_START, csv_cell, html_text, markdown_text, terminal_text

CORPUS = json.loads((Path(__file__).parent / "hostile" / "names.json").read_text())
NAMES: list[str] = CORPUS["names"]


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory, colors_root, plugin_site):
    """One real run, copied once per hostile name: the model named by it, every answer carrying it."""
    root = tmp_path_factory.mktemp("hostile_runs")
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(plugin_site))
    try:
        cfg = _cfg(root, colors_root, log_samples=True, output_path=root / "base")
        run(cfg, load_plugins())
    finally:
        mp.undo()
    paths = []
    for i, name in enumerate(NAMES):
        folder = root / f"run{i}"
        shutil.copytree(root / "base", folder)
        (results,) = folder.rglob("results_*.json")
        data = json.loads(results.read_text())
        data["model"]["name"] = name
        results.write_text(json.dumps(data))
        for samples in folder.rglob("samples_*.jsonl"):
            rows = [json.loads(x) for x in samples.read_text().splitlines()]
            for r in rows:
                r["raw"] = CORPUS["outputs"][i]
            samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(results)
    return paths


def _no_controls(text: str) -> None:
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text), "a control sequence got through"


def _outside_fences(markdown: str) -> str:
    return re.sub(r"```.*?```", "", markdown, flags=re.S)


def _unescaped(markdown: str) -> list[str]:
    """Markdown markup characters not preceded by a backslash (outside code fences)."""
    return re.findall(r"(?<!\\)[<>\[\]]", _outside_fences(markdown))


def test_the_leaderboard_escapes_names_in_markdown_csv_and_the_terminal(hostile_runs, tmp_path, plugin_site):
    env = harness_env(plugin_site)
    files = [str(p) for p in hostile_runs]
    md, table = tmp_path / "board.md", tmp_path / "board.csv"
    r = run_harness(["leaderboard", *files, "--out", str(md)], env)
    assert r.returncode == 0, r.stderr
    _no_controls(r.stdout)
    text = md.read_text()
    _no_controls(text)
    assert _unescaped(text) == [], "no markup character reaches the Markdown unescaped"
    assert all(markdown_text(n) in text for n in NAMES), "each name is shown, escaped"
    pipes = {len(re.findall(r"(?<!\\)\|", line)) for line in text.splitlines() if line.startswith("|")}
    assert pipes == {5}, "no name adds or breaks a table column"
    assert run_harness(["leaderboard", *files, "--out", str(table)], env).returncode == 0
    with open(table, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    models = [row[1] for row in rows[1:]]
    assert sorted(models) == sorted(csv_cell(n) for n in NAMES)
    assert not [m for m in models if m.startswith(CSV_FORMULA_START)], "no cell a spreadsheet evaluates"
    assert run_harness(["leaderboard", *files, "--out", str(tmp_path / "b.json")], env).returncode == 0
    board = json.loads((tmp_path / "b.json").read_text())
    assert sorted(e["model"] for e in board["entries"]) == sorted(NAMES), "JSON keeps the data as it is"


def test_the_report_escapes_names_and_model_outputs_in_markdown_and_html(hostile_runs, tmp_path, plugin_site):
    out = tmp_path / "report"
    r = run_harness(
        ["report", *map(str, hostile_runs[:6]), "--out", str(out), "--samples", "1"], harness_env(plugin_site)
    )
    assert r.returncode == 0, r.stderr
    _no_controls(r.stdout + r.stderr)
    md = (out / "report.md").read_text()
    _no_controls(_outside_fences(md))
    outside = _outside_fences(md)
    for name in NAMES[:6]:
        assert markdown_text(name) in outside, f"{name!r} is shown escaped"
        assert name == markdown_text(name) or name not in outside, f"{name!r} reaches report.md raw"
    assert not re.search(r"(?<!\\)<(script|img|a |!--)", outside)
    page = (out / "report.html").read_text()
    _no_controls(page)
    assert not re.search(r"<script|<img src=x|<a href='x'|onerror=alert\(1\)>|<!--", page, re.I)
    assert html_text(NAMES[0]) in page and html_text(CORPUS["outputs"][1]) in page


def test_the_escapes_of_each_format():
    assert markdown_text("<b>|[x](y)</b>\n\x1b[2J") == "\\<b\\>\\|\\[x\\](y)\\</b\\> \\\\x1b\\[2J"
    assert [csv_cell(v) for v in ["=1+1", "+1", "-1", "@A", "\t1", "\r1", "ok", 3]] == [
        "'=1+1", "'+1", "'-1", "'@A", "'\t1", "'\\x0d1", "ok", 3,
    ]  # fmt: skip
    assert terminal_text("a\x1b[31mb\rc\nd\u202e") == "a\\x1b[31mb\\x0dc\nd\\u202e"
    assert html_text("<a href='x'>\x07") == "&lt;a href=&#x27;x&#x27;&gt;\\x07"
