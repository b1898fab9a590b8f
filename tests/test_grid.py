"""`python -m harness grid`: each cell's files equal the single run command's, a SIGKILLed grid resumes with no
finished model call repeated and one results file per cell, a complete grid reruns nothing, failed and stale
cells are reported, a bad grid file is refused (exit 2) and a missing extra named (exit 3)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pytest
import tqdm
from grid_helpers import (
    cached,
    calls,
    cell_results,
    data_root,
    differences,
    grid_cells,
    include_folder,
    read_run,
    results_files,
    write_grid,
)

from conftest import harness_env, run_harness, run_in, without_packages
from harness.cli.main import main as harness_main
from harness.grid.cells import build_cells
from harness.grid.progress import ThrottledReport
from harness.grid.spec import load_grid, parse_grid
from harness.grid.worker import run_job
from harness.plugins.loading import load_plugins


@pytest.fixture(scope="module")
def world(tmp_path_factory, plugin_site):
    """Data root (cyclist demo + colors), an --include_path folder, and the environment with the test plugin."""
    base = tmp_path_factory.mktemp("gridworld")
    return {"data": data_root(base / "data"), "inc": include_folder(base / "inc"), "env": harness_env(plugin_site)}


def _grid(world, tmp_path, models, tasks, **extra) -> Path:
    fields = {
        "output_path": tmp_path / "out",
        "cache_dir": tmp_path / "cache",
        "data": world["data"],
        "include_path": [world["inc"]],
        "tasks": tasks,
        "models": models,
        "log_samples": True,
        **extra,
    }
    return write_grid(tmp_path / "grid.yaml", **fields)


def _single(world, out: Path, cache: Path, task: str, model: str, model_args: str = "", limit=None, env=None) -> None:
    """The run command for one cell, in a process of its own (as a user runs it)."""
    args = ["--tasks", task, "--model", model, "--model_args", model_args, "--data", str(world["data"])]
    args += ["--include_path", str(world["inc"]), "--output_path", str(out), "--cache_dir", str(cache)]
    args += ["--log_samples", "--no_progress"] + (["--limit", str(limit)] if limit else [])
    r = run_harness(args, env or world["env"])
    assert r.returncode == 0, r.stderr


def test_cells_equal_single_runs_and_a_complete_grid_reruns_nothing(world, tmp_path):
    log = tmp_path / "calls.log"
    models = [{"model": "random"}, {"model": "oracle"}, {"model": "counting", "model_args": f"log={log},max_frames=1", "name": "cnt"}]
    grid = _grid(world, tmp_path, models, ["cyclist_l1", "colors_local"], limit=4, max_parallel=2)
    r = run_harness(["grid", str(grid)], world["env"])
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    assert [c["status"] for c in grid_cells(out)] == ["done"] * 6
    assert len(results_files(out)) == 6
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "report/report.md", "report/report.html"):
        assert (out / name).is_file(), name
    board = json.loads((out / "leaderboard.json").read_text())
    assert "cnt" in r.stderr and "oracle x cyclist_l1: done accuracy=1.0000" in r.stderr
    assert board  # the leaderboard command's own output over every cell
    # each cell's results and samples are what the single command writes (same cache: same answers)
    ref = tmp_path / "ref"
    for task in ("cyclist_l1", "colors_local"):
        _single(world, ref, tmp_path / "cache", task, "random,oracle", limit=4)  # --model a,b,c
        _single(world, ref, tmp_path / "cache", task, "counting", f"log={log},max_frames=1", limit=4)
    singles = {}
    for path in results_files(ref):
        results, samples = read_run(path)
        singles[(results["config"]["model"], results["config"]["requested"][0])] = (results, samples)
    assert len(singles) == 6
    for name, model in (("random", "random"), ("oracle", "oracle"), ("cnt", "counting")):
        for task in ("cyclist_l1", "colors_local"):
            cell = cell_results(out, name, task)
            assert cell == singles[(model, task)], (name, task, differences(cell, singles[(model, task)]))
    # rerunning the complete grid makes no model call and writes no results file
    before = calls(log)
    r = run_harness(["grid", str(grid)], world["env"])
    assert r.returncode == 0, r.stderr
    assert calls(log) == before
    assert len(results_files(out)) == 6
    assert r.stderr.count("not run again") == 6


def _kill_when(proc: subprocess.Popen, logs: list[Path], n: int) -> None:
    deadline = time.time() + 120
    while calls(*logs) < n and proc.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and its workers, as a kill of the job would
    proc.wait()


def test_sigkill_then_resume_repeats_no_finished_call(world, tmp_path):
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    models = [
        {"model": "counting", "model_args": {"log": str(logs[0]), "delay": 0.03}},
        {"model": "counting", "model_args": {"log": str(logs[1]), "delay": 0.03, "wrong_every": 3}},
    ]
    grid = _grid(world, tmp_path, models, ["colors_qa", "colors_local"], max_parallel=2)
    out, cache = tmp_path / "out", tmp_path / "cache"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "grid", str(grid)],
        env=world["env"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    _kill_when(proc, logs, 30)  # mid-way: the first cells of both models are done or in flight
    finished, before = cached(cache), calls(*logs)
    assert 0 < finished < 96
    r = run_harness(["grid", str(grid)], world["env"])
    assert r.returncode == 0, r.stderr
    assert calls(*logs) - before == cached(cache) - finished, "a finished model call was repeated"
    cells = grid_cells(out)
    assert [c["status"] for c in cells] == ["done"] * 4
    assert len(results_files(out)) == 4  # exactly one results file per cell
    assert len({c["results"] for c in cells}) == 4
    before = calls(*logs)
    assert run_harness(["grid", str(grid)], world["env"]).returncode == 0
    assert calls(*logs) == before


def test_failed_cell_is_reported_others_go_on_and_changed_cells_are_new(world, tmp_path):
    models = [{"model": "random"}, {"model": "counting", "model_args": "down=1"}]
    grid = _grid(world, tmp_path, models, ["colors_local", "tempcloze_all"], limit=2)
    r = run_harness(["grid", str(grid)], world["env"])
    assert r.returncode == 5, r.stderr
    status = {(c["name"], c["task"]): c for c in grid_cells(tmp_path / "out")}
    assert status[("random", "colors_local")]["status"] == "done"
    refused = status[("random", "tempcloze_all")]
    assert refused["status"] == "failed" and "tempcloze" in refused["reason"] and not refused["results"]
    down = status[("counting", "colors_local")]
    assert down["status"] == "incomplete" and down["reason"] and down["results"]
    assert "random x tempcloze_all: failed" in r.stderr
    # the same grid again: the done cell stays, the others run again; a changed limit makes new cells
    r = run_harness(["grid", str(grid)], world["env"])
    assert r.returncode == 5 and r.stderr.count("not run again") == 1
    grid = _grid(world, tmp_path, models[:1], ["colors_local"], limit=3)
    r = run_harness(["grid", str(grid)], world["env"])
    assert r.returncode == 0, r.stderr
    state = json.loads((tmp_path / "out" / "grid.json").read_text())
    assert len(state["cells"]) == 1 and len(state["stale"]) == 4
    assert "stale: random x colors_local" in r.stderr


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"output_path": None}, "output_path"),
        ({"models": [{"model_args": "a=1"}]}, "models[0].model"),
        ({"bogus": 1}, "bogus"),
        ({"tasks": ["random_task_that_is_not"]}, "tasks[0]"),
        ({"models": [{"model": "random"}, {"model": "nonesuch"}]}, "models[1].model"),
        ({"frames": "uniform:zero"}, "frames"),
        ({"max_parallel": 0}, "max_parallel"),
        ({"data": "/nonexistent/data/root"}, "data"),
        ({"data": "/", "data_revision": "main"}, "data_revision"),
        ({"executor": "kubernetes"}, "executor"),
        ({"models": [{"model": "random", "model_args": "novalue"}]}, "models[0].model_args"),
    ],
)
def test_a_bad_grid_file_is_refused_naming_the_field(tmp_path, capsys, fields, named):
    base = {"output_path": str(tmp_path / "out"), "tasks": ["cyclist_l1"], "models": [{"model": "random"}]}
    base.update(fields)
    grid = write_grid(tmp_path / "g.yaml", **{k: v for k, v in base.items() if v is not None})
    assert harness_main(["grid", str(grid)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"field '{named}'" in err and str(grid) in err
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written


@pytest.mark.parametrize(("executor", "extra"), [("ray", "ray"), ("slurm", "slurm")])
def test_an_executor_without_its_extra_names_it(world, tmp_path, executor, extra):
    grid = _grid(world, tmp_path, [{"model": "random"}], ["colors_local"], executor=executor)
    env = without_packages(dict(world["env"]), tmp_path / "hide", "ray", "submitit")
    r = run_harness(["grid", str(grid)], env)
    assert r.returncode == 3, r.stderr
    assert f"'{extra}' extra" in r.stderr or f"[{extra}]" in r.stderr
    assert not list((tmp_path / "out").glob("*/results_*.json"))


def test_model_list_without_a_name_is_a_usage_error(capsys):
    assert harness_main(["--tasks", "cyclist_l1", "--model", ","]) == 2
    assert "no model name" in capsys.readouterr().err


def test_a_frame_count_that_is_not_a_number_is_a_usage_error(capsys):
    # was a ValueError traceback from parse_frames (found by the grid's field check)
    assert harness_main(["--tasks", "cyclist_l1", "--model", "random", "--frames", "uniform:zero"]) == 2
    assert "'zero' is not a frame count" in capsys.readouterr().err


def test_a_worker_loads_its_model_once_for_all_its_cells(world, with_plugin, tmp_path, monkeypatch):
    from harness_colors.models import CountingModel

    builds, closes = [], []
    real_init = CountingModel.__init__

    def counted_init(self, **kw):
        builds.append(kw)
        real_init(self, **kw)

    monkeypatch.setattr(CountingModel, "__init__", counted_init)
    monkeypatch.setattr(CountingModel, "close", lambda self: closes.append(self), raising=False)
    grid = load_grid(_grid(world, tmp_path, [{"model": "counting"}], ["colors_qa", "colors_local"], limit=2))
    cells = build_cells(grid, load_plugins(grid.include_path))
    job = {"entry": 0, "output_path": str(tmp_path / "out"), "cells": [asdict(c) for c in cells]}
    assert [r["status"] for r in run_job(job)] == ["done", "done"]
    assert len(builds) == 1 and len(closes) == 1  # one checkpoint load for the entry's cells, closed once
    # outside a grid worker every run builds and closes its own model, as before
    run_in(tmp_path / "plain", ["colors_qa"], "counting", world["data"], limit=2)
    assert len(builds) == 2 and len(closes) == 2


def test_a_cells_identity_follows_what_changes_its_answers(world, tmp_path, monkeypatch):
    base = {"output_path": str(tmp_path / "out"), "tasks": ["colors_local"], "include_path": [str(world["inc"])],
            "models": [{"model": "random"}], "data": str(world["data"])}
    state = load_plugins([str(world["inc"])])

    def cell_id(**changes) -> str:
        (cell,) = build_cells(parse_grid({**base, **changes}, "g.yaml"), state)
        return cell.id

    same = cell_id()
    assert cell_id(batch_size=4, max_parallel=3, cache_dir=str(tmp_path / "c2"), executor="ray") == same
    assert cell_id(frames="uniform:8") == cell_id(frames="strategy=uniform,count=8")
    changed = [
        cell_id(limit=3), cell_id(seed=1), cell_id(frames="uniform:4"), cell_id(split="train"),
        cell_id(models=[{"model": "random", "model_args": "seed=2"}]), cell_id(models=[{"model": "oracle"}]),
        cell_id(data=str(tmp_path)), cell_id(gen_kwargs="temperature=0.5"), cell_id(log_samples=True),
    ]
    base.pop("data")
    changed += [cell_id(data_revision="v1"), cell_id(data_revision="v2")]
    monkeypatch.setattr("harness.grid.cells.__version__", "999.0")
    changed.append(cell_id())
    assert same not in changed and len(set(changed)) == len(changed)


@pytest.mark.hf
def test_a_grid_of_a_tiny_hf_model_equals_its_single_runs(world, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tiny_checkpoints import Checkpoints

    margs = {"pretrained": str(Checkpoints()["qwen2_vl"]), "dtype": "float32", "device_map": "cpu", "max_new_tokens": 4}
    env = {**world["env"], "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    grid = _grid(world, tmp_path, [{"model": "qwen2_vl_7b", "model_args": margs}], ["cyclist_l1", "colors_local"], limit=2)
    r = run_harness(["grid", str(grid)], env)
    assert r.returncode == 0, r.stderr
    for task in ("cyclist_l1", "colors_local"):
        kv = ",".join(f"{k}={v}" for k, v in margs.items())
        _single(world, tmp_path / "ref", tmp_path / "cache", task, "qwen2_vl_7b", kv, limit=2, env=env)
    singles = {read_run(p)[0]["config"]["requested"][0]: read_run(p) for p in results_files(tmp_path / "ref")}
    for task in ("cyclist_l1", "colors_local"):
        cell = cell_results(tmp_path / "out", "qwen2_vl_7b", task)
        assert cell == singles[task], differences(cell, singles[task])


def test_a_running_cell_reports_its_progress(world, with_plugin, tmp_path, monkeypatch):
    """The cell's run carries its reporter (RunConfig.on_progress): tqdm is never patched, so another run or
    bar in the worker's process is not counted as the cell's."""
    written, patched = [], []

    def status(out, cell_id, status):
        written.append(status)
        patched.append(tqdm.tqdm is not tqdm.std.tqdm)

    monkeypatch.setattr("harness.grid.worker.write_status", status)
    monkeypatch.setattr("harness.grid.progress.REPORT_SECONDS", 0.0)
    grid = load_grid(_grid(world, tmp_path, [{"model": "counting"}], ["colors_local"], limit=3))
    (cell,) = build_cells(grid, load_plugins(grid.include_path))
    run_job({"entry": 0, "output_path": str(tmp_path / "out"), "cells": [asdict(cell)]})
    progress = [s.get("progress") for s in written if s["status"] == "running"]
    assert progress == [None, "1/3 samples generated", "2/3 samples generated", "3/3 samples generated"]
    assert written[-1]["status"] == "done"
    assert not any(patched)  # while the cell ran too


def test_a_cells_progress_is_written_at_most_every_few_seconds(monkeypatch):
    sent = []
    monkeypatch.setattr("harness.grid.progress.REPORT_SECONDS", 3600.0)
    report = ThrottledReport(lambda done, total: sent.append(f"{done}/{total}"))
    for done in range(1, 6):
        report(done, 5)
    assert sent == ["1/5", "5/5"]  # the first, then nothing within the interval but the last
