"""Hostile results and samples files (issue 37, part 1 and 2; corpus in tests/hostile_results.py): every reader
(report, compare, leaderboard, --rescore, the TempCloze Hard-subset builder) refuses what does not fit the
results models with one line naming the file, the field and what was expected (exit 2), never a traceback, a
hang or a wrong number; in a folder of runs the other files go on; the gate fails closed on NEW's headline."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

import jsonschema
import pytest
from hostile_results import (
    NONFINITE_CASES,
    SAMPLE_CASES,
    SAMPLE_NONFINITE,
    TASK,
    TYPE_CASES,
    deep,
    good_results,
    set_field,
    with_text,
    write_run,
)

from harness.cli.main import main
from harness.errors import EXIT_REGRESSION, EXIT_USAGE, HarnessError
from harness.report.compare import compare_runs
from harness.report.leaderboard import build_leaderboard
from harness.report.loading import load_runs
from harness.results import reading
from harness.results.models import results_json_schema
from harness.results.reading import ResultsFileError, SamplesFileError, read_results, read_samples
from harness.results.writer import SCHEMA_PATH, validate_results
from harness_builders.tempcloze.hard import samples_files


def _one_line_error(capsys, *names: str) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert "Traceback" not in err and len(lines) == 1, err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


def test_the_schema_file_is_generated_from_the_models():
    # `python -m harness.results.models > harness/results/schemas/results.schema.json` after a model change
    assert json.loads(SCHEMA_PATH.read_text(encoding="utf-8")) == results_json_schema()


#: lm-eval's entry keys under filter pipelines (a group's entry too): `<metric>,<filter>` for any filter name
FILTER_KEYS = {"accuracy,strict": 0.5, "accuracy_stderr,strict": "N/A", "exact_match,flexible-extract": None,
               "exact_match_stderr,flexible-extract": 0.01}
#: what is still no lm-eval key or value: a metric without its filter, two commas, no metric, a string value
NOT_LM_EVAL = [("accuracy", 0.5), ("accuracy,a,b", 0.5), (",none", 0.5), ("accuracy,", 0.5),
               ("accuracy,strict", "high"), ("accuracy_stderr,strict", "n/a"), ("accuracy,strict", "N/A")]


def test_lm_eval_entries_take_every_filter_pipeline_and_nothing_else():
    schema = jsonschema.Draft202012Validator(results_json_schema())
    data = good_results()
    data["results"][TASK].update(FILTER_KEYS)
    data["results"]["a_group"] = data["groups"]["a_group"] = {"name": "a_group", "alias": "a_group", **FILTER_KEYS}
    validate_results(data)
    assert not list(schema.iter_errors(data))
    for key, value in NOT_LM_EVAL:
        bad = good_results()
        bad["results"][TASK][key] = value
        with pytest.raises(ResultsFileError, match=f"field 'results.{TASK}': key '{key}'"):
            validate_results(bad)
        assert list(schema.iter_errors(bad)), key


def test_a_good_run_reads_and_a_bom_is_allowed(tmp_path):
    data = good_results()
    validate_results(data)
    path = write_run(tmp_path / "run", None, b"\xef\xbb\xbf" + json.dumps(data).encode())
    run = read_results(path)
    assert run.model.model.name == "counting" and run.model.task_results[TASK].headline == "accuracy"


@pytest.mark.parametrize(("field", "value"), TYPE_CASES, ids=[f"{f}={v!r:.20}" for f, v in TYPE_CASES])
def test_a_wrong_type_is_one_line_naming_file_and_field(tmp_path, capsys, field, value):
    path = write_run(tmp_path / "run", set_field(field, value)(good_results()))
    assert main(["report", str(path), "--out", str(tmp_path / "r")]) == EXIT_USAGE
    shown = field.split(".")[0] if field != "model.name" or value is not None else "model"
    _one_line_error(capsys, str(path), f"field '{shown}")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("field", "text"), NONFINITE_CASES, ids=[f"{f}={t}" for f, t in NONFINITE_CASES])
def test_nan_and_infinity_are_refused_naming_the_field(tmp_path, capsys, field, text):
    path = write_run(tmp_path / "run", None, with_text(good_results(), field, text))
    assert main(["leaderboard", str(path), "--out", str(tmp_path / "board.md")]) == EXIT_USAGE
    line = _one_line_error(capsys, str(path), f"field '{field}")
    assert "finite number" in line
    assert not (tmp_path / "board.md").exists()


@pytest.mark.parametrize(
    "raw",
    [b"", b"{", b'{"model": {"name": "x"}, "results"', b"\xff\xfe{}", b"[1, 2]", b'"text"', b"{} {}", b"nul\x00"],
    ids=["empty", "brace", "truncated", "utf16", "list", "string", "two-objects", "binary"],
)
def test_broken_json_is_refused(tmp_path, capsys, raw):
    path = write_run(tmp_path / "run", None, raw)
    assert main(["compare", str(path), str(path)]) == EXIT_USAGE
    _one_line_error(capsys, str(path))


def test_deep_nesting_is_refused_fast(tmp_path, capsys):
    for depth in (200_000, reading.MAX_DEPTH + 5):
        path = write_run(tmp_path / f"d{depth}", None, deep(depth))
        start = time.monotonic()
        assert main(["report", str(path), "--out", str(tmp_path / "r")]) == EXIT_USAGE
        assert time.monotonic() - start < 5
        assert "nested" in _one_line_error(capsys, str(path))


def test_huge_strings_and_files_are_refused_within_bounded_memory(tmp_path, capsys, monkeypatch):
    data = good_results()
    data["model"]["name"] = "m" * (reading.MAX_STRING + 1)  # over the string limit: refused before the models
    path = write_run(tmp_path / "big", data)
    assert main(["report", str(path), "--out", str(tmp_path / "r")]) == EXIT_USAGE
    assert "characters" in _one_line_error(capsys, str(path), "field 'model.name'")
    path = write_run(tmp_path / "over", good_results())
    monkeypatch.setattr(reading, "MAX_RESULTS_BYTES", 1000)
    assert main(["leaderboard", str(path), "--out", str(tmp_path / "b.csv")]) == EXIT_USAGE
    assert "over the limit" in _one_line_error(capsys, str(path))


def test_a_fifo_a_device_and_a_folder_are_never_opened_as_files(tmp_path, capsys):
    fifo = tmp_path / "results_fifo.json"
    os.mkfifo(fifo)
    folder = tmp_path / "results_dir.json"
    folder.mkdir()
    for path in (fifo, Path("/dev/zero"), folder):
        start = time.monotonic()
        with pytest.raises(ResultsFileError, match="not a regular file|a folder"):
            read_results(path)
        assert time.monotonic() - start < 5
    assert main(["report", str(fifo), "--out", str(tmp_path / "r")]) == EXIT_USAGE
    _one_line_error(capsys, str(fifo), "FIFO")
    sfifo = tmp_path / "samples_colors_qa_2026.jsonl"
    os.mkfifo(sfifo)
    for path in (sfifo, Path("/dev/zero")):  # --rescore on a FIFO once hung, on /dev/zero ran out of memory
        assert main(["--rescore", str(path)]) == EXIT_USAGE
        _one_line_error(capsys, str(path))


@pytest.mark.parametrize("name", ["/etc/passwd", "../outside.jsonl", "sub/../../outside.jsonl", "C:\\x.jsonl"])
def test_samples_files_outside_the_results_folder_are_refused(tmp_path, capsys, name):
    (tmp_path / "outside.jsonl").write_text("{}\n")
    data = good_results()
    data["samples_files"][TASK] = name
    path = write_run(tmp_path / "run", data)
    assert main(["report", str(path), "--out", str(tmp_path / "r")]) == EXIT_USAGE
    _one_line_error(capsys, str(path), f"field 'samples_files.{TASK}'")
    with pytest.raises(ValueError, match="samples_files"):  # the Hard-subset builder reads through it too
        samples_files([path])


def test_a_samples_file_linked_out_of_the_folder_is_refused(tmp_path, capsys):
    data = good_results()
    path = write_run(tmp_path / "run", data)
    secret = tmp_path / "secret.jsonl"
    secret.write_text((path.parent / data["samples_files"][TASK]).read_text())
    (path.parent / data["samples_files"][TASK]).unlink()
    (path.parent / data["samples_files"][TASK]).symlink_to(secret)
    assert main(["report", str(path), "--out", str(tmp_path / "r")]) == EXIT_USAGE
    assert "resolves outside" in _one_line_error(capsys, str(path))


@pytest.mark.parametrize(("field", "value"), SAMPLE_CASES, ids=[f"{f}={v!r}" for f, v in SAMPLE_CASES])
def test_a_wrong_type_in_a_samples_line_names_file_line_and_field(tmp_path, field, value):
    path = write_run(tmp_path / "run", good_results())
    sp = next(path.parent.glob(f"samples_{TASK}_*.jsonl"))
    lines = sp.read_text().splitlines()
    rec = json.loads(lines[1])
    rec[field] = value
    lines[1] = json.dumps(rec)
    sp.write_text("\n".join(lines) + "\n")
    with pytest.raises(SamplesFileError, match=rf"{sp.name}:2: field '{field}"):
        read_samples(sp)
    with pytest.raises(ResultsFileError, match=rf"{sp.name}:2: field '{field}"):
        load_runs([path])


@pytest.mark.parametrize("scores", SAMPLE_NONFINITE)
def test_nan_scores_in_samples_are_refused(tmp_path, capsys, scores):
    path = write_run(tmp_path / "run", good_results())
    sp = next(path.parent.glob(f"samples_{TASK}_*.jsonl"))
    text = sp.read_text().splitlines()
    rec = json.loads(text[0])
    rec["scores"] = "@@"
    text[0] = json.dumps(rec).replace('"@@"', scores)
    sp.write_text("\n".join(text) + "\n")
    assert main(["--rescore", str(sp)]) == EXIT_USAGE
    assert "finite number" in _one_line_error(capsys, f"{sp.name}:1", "field 'scores.accuracy'")


def test_truncated_and_bom_samples_files(tmp_path, capsys):
    path = write_run(tmp_path / "run", good_results())
    sp = next(path.parent.glob(f"samples_{TASK}_*.jsonl"))
    text = sp.read_bytes()
    sp.write_bytes(b"\xef\xbb\xbf" + text)  # a BOM: read
    assert len(read_samples(sp)) == len(text.splitlines())
    sp.write_bytes(text[: len(text) - 40])  # cut inside the last line
    assert main(["--rescore", str(sp)]) == EXIT_USAGE
    assert "truncated" in _one_line_error(capsys, f"{sp.name}:{len(text.splitlines())}")


def test_in_a_folder_of_runs_a_bad_file_is_named_and_the_others_go_on(tmp_path, capsys):
    write_run(tmp_path / "runs" / "good", good_results())
    bad = write_run(tmp_path / "runs" / "bad", set_field(f"task_results.{TASK}.metrics", "x")(good_results()))
    board = tmp_path / "board.json"
    assert main(["leaderboard", str(tmp_path / "runs"), "--out", str(board)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"error: {bad}: field 'task_results.{TASK}.metrics'" in err and "1 results file(s) skipped" in err
    assert "Traceback" not in err
    assert "counting" in board.read_text()  # the good run is ranked
    assert main(["report", str(tmp_path / "runs"), "--out", str(tmp_path / "rep")]) == EXIT_USAGE
    assert (tmp_path / "rep" / "report.md").exists()


def test_newer_and_older_schema_versions(tmp_path, capsys):
    path = write_run(tmp_path / "run", set_field("schema_version", 99)(good_results()))
    assert main(["report", str(path), "--out", str(tmp_path / "r")]) == EXIT_USAGE
    assert "schema_version 99" in _one_line_error(capsys, str(path))
    v1 = {"model": {"name": "m"}, "results": {"t": {"metrics": {"acc": "high"}}}}  # a broken version-1 file
    path = write_run(tmp_path / "v1", v1)
    assert main(["report", str(path), "--out", str(tmp_path / "r")]) == EXIT_USAGE
    _one_line_error(capsys, str(path), "field 'results.t.metrics.acc'")


# -- the gate fails closed (issue 37, part 2) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [("NaN", "NaN"), ("Infinity", "Infinity"), ('"0.99"', "not a number"), ("true", "not a number"),
     ("null", "")],
)
def test_compare_a_headline_that_is_no_number_in_new_is_a_regression(tmp_path, capsys, text, why):
    base = write_run(tmp_path / "base", good_results())
    new = write_run(tmp_path / "new", None, with_text(good_results(), f"task_results.{TASK}.metrics.accuracy.value", text))
    assert main(["compare", str(base), str(new)]) == EXIT_REGRESSION
    out = capsys.readouterr().out
    assert "REGRESSION (no value" in out and why in out


def test_compare_a_headline_or_task_missing_in_new_is_a_regression(tmp_path, capsys):
    base = write_run(tmp_path / "base", good_results())
    data = good_results()
    data["task_results"][TASK]["metrics"]["other"] = data["task_results"][TASK]["metrics"].pop("accuracy")
    new = write_run(tmp_path / "new", data)
    assert main(["compare", str(base), str(new)]) == EXIT_REGRESSION
    assert "the metric is missing in NEW" in capsys.readouterr().out
    data = good_results()
    del data["task_results"][TASK]
    new = write_run(tmp_path / "new2", data)
    assert main(["compare", str(base), str(new), "--tasks", TASK]) == EXIT_REGRESSION  # a task the gate names
    assert "the task is missing in NEW" in capsys.readouterr().out
    assert main(["compare", str(base), str(new)]) == 0  # by default: the tasks both ran (README, step 5)
    assert f"only in base: {TASK}" in capsys.readouterr().out


# -- the smaller breaks of issue 37 -----------------------------------------------------------------------


def test_an_output_path_that_is_a_file_is_exit_2_before_any_model_call(tmp_path, with_plugin, colors_root, capsys):
    target = tmp_path / "taken"
    target.write_text("a file")
    args = ["--tasks", "colors_qa", "--model", "counting", "--data", str(colors_root), "--cache_dir",
            str(tmp_path / "c")]
    for out in (target, target / "below"):
        assert main([*args, "--output_path", str(out)]) == EXIT_USAGE
        assert "not a folder" in _one_line_error(capsys, str(target))
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "counting").write_text("the model's folder is a file")
    assert main([*args, "--output_path", str(tmp_path / "o")]) == EXIT_USAGE
    _one_line_error(capsys, "counting")
    assert not list((tmp_path / "c").rglob("*.sqlite*")), "no model call was made (nothing cached)"


def test_import_writes_only_under_out_and_refuses_a_file_there(tmp_path, monkeypatch, capsys):
    from test_tempcloze_import import official_file  # noqa: PLC0415 - the importer's input, made there

    monkeypatch.chdir(tmp_path)
    official_file(tmp_path / "m.json")
    (tmp_path / "file").write_text("x")
    assert main(["import", "tempcloze-official", "m.json", "--out", "file"]) == EXIT_USAGE
    _one_line_error(capsys, "import --out file")
    assert main(["import", "tempcloze-official", "m.json", "--out", "dest"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dest", "file", "m.json"]  # nothing in ./out
    (written,) = (tmp_path / "dest" / "m").glob("results_*.json")
    assert read_results(written).model.samples_files


# -- every field, every kind of wrong value: refused by name, or read and used without a crash ------------

FUZZ_VALUES = ["x", [], {}, None, -1, True, 0.5, 10**30]


def _field_paths(node, at=()):
    if at:
        yield at
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _field_paths(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:1]):
            yield from _field_paths(v, (*at, i))


def _fuzz(tmp_path, prefixes: tuple[str, ...], values: tuple = tuple(FUZZ_VALUES)) -> int:
    base = good_results()
    base_path = write_run(tmp_path / "base", base)
    good = load_runs([base_path])
    tried = 0
    for at in _field_paths(base):
        if not at or at[0] not in prefixes:
            continue
        for value in values:
            data = good_results()
            _put(data, at, value)
            path = write_run(tmp_path / "case", data)
            tried += 1
            try:
                runs = load_runs([path])
            except ResultsFileError:
                continue
            with contextlib.suppress(HarnessError):  # accepted: the readers' code works on it or says why
                build_leaderboard(runs)
            compare_runs(good[0], runs[0])
            compare_runs(runs[0], good[0])
    return tried


def _put(data, at, value):
    node = data
    for k in at[:-1]:
        node = node[k]
    node[at[-1]] = value


def test_every_field_of_the_accounting_is_refused_or_safe(tmp_path):
    assert _fuzz(tmp_path, ("task_results",), ("x", None, -1, [])) > 150


@pytest.mark.slow
def test_every_field_is_refused_or_safe(tmp_path):
    assert _fuzz(tmp_path, tuple(good_results())) > 2000
