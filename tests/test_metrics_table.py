"""metrics/table.py is the one definition of every metric: the registration, the `evaluate` module folders,
their descriptions and input columns, and the docs' list of modules all agree with it, and a new row
becomes a loadable `evaluate` module with no other hand-written file."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import harness_metrics as metrics
from harness_metrics import plugin
from harness_metrics.evaluate_modules import files
from harness_metrics.evaluate_modules.calls import CALLS
from harness_metrics.table import BY_NAME, METRICS, MetricRow, metric_row

DOCS = Path(__file__).parents[1] / "docs" / "metrics.md"


def test_every_module_folder_is_as_the_table_writes_it():
    assert files.stale() == []


def test_rows_name_importable_functions_known_calls_and_parsable_columns():
    pytest.importorskip("datasets")
    from harness_metrics.evaluate_modules.features import features

    assert len(BY_NAME) == len(METRICS)
    for row in METRICS:
        module, attr = row.function.split(":")
        assert getattr(importlib.import_module(module), attr) is getattr(metrics, attr)
        assert row.call in CALLS, row.name
        assert row.summary and "\n" not in row.summary and not row.summary.endswith(".")
        assert features(row.predictions, row.references)


def test_registration_reads_the_table():
    registered = {}
    plugin.register_metrics(
        lambda name, ref, description="": registered.__setitem__(name, (ref, description))
    )
    assert registered == {row.name: (row.function, row.summary) for row in METRICS}


def test_unknown_metric_and_column_type_are_named():
    with pytest.raises(KeyError, match="metric 'nope' is not in metrics/table.py; known: jaccard"):
        metric_row("nope")
    pytest.importorskip("datasets")
    from harness_metrics.evaluate_modules.features import column

    with pytest.raises(ValueError, match="unknown column type 'str'"):
        column("[str]")


def test_docs_list_every_module_and_every_metric():
    text = DOCS.read_text()
    listed = re.search(
        r"Folders under `metrics/evaluate_modules/`, one per row of the table: ([^.]+)\.", text
    )
    assert listed, "docs/metrics.md lost its list of module folders"
    names = {n.strip() for n in listed.group(1).replace("\n", " ").split(",")}
    assert names == set(BY_NAME)
    for row in METRICS:
        assert f"`{row.name}" in text, f"docs/metrics.md does not describe {row.name}"


def test_a_loaded_module_is_described_by_its_row(evaluate_offline):
    for name in ("giou_boxes", "accuracy"):
        row = metric_row(name)
        module = evaluate_offline.load(str(files.FOLDER / name))
        assert module.name == name
        assert module.description == row.description
        assert module.description.startswith(row.summary[0].upper() + row.summary[1:] + ". ")
    typings = evaluate_offline.load(str(files.FOLDER / "accuracy")).info.features
    assert [str(f["predictions"].dtype) for f in typings] == ["string", "int64", "float64"]


def test_a_new_row_becomes_a_loadable_module(evaluate_offline, monkeypatch, tmp_path):
    """Adding a metric: one row (here naming an existing function) and the writer; nothing hand-written."""
    row = MetricRow(
        "exact_share",
        "harness_metrics.answers:accuracy",
        "share of exact answers",
        "One example = one answer and its target.",
        "string",
        "string",
    )
    monkeypatch.setattr(files, "METRICS", (*METRICS, row))
    monkeypatch.setitem(BY_NAME, row.name, row)
    root = tmp_path / "modules"
    written = files.write(root)
    assert {p.name for p in written} >= {"exact_share.py", "__init__.py"}
    assert files.stale(root) == [] and files.write(root) == []
    module = evaluate_offline.load(str(root / "exact_share"))
    assert module.compute(predictions=["a", "b"], references=["a", "c"]) == {"exact_share": 0.5}
    assert module.description == "Share of exact answers. One example = one answer and its target."

    (root / "exact_share" / "exact_share.py").write_text("# edited by hand\n")
    (root / "retired").mkdir()
    problems = files.stale(root)
    assert any("exact_share.py: missing or not as metrics/table.py writes it" in p for p in problems)
    assert any("retired: a module folder without a row" in p for p in problems)
