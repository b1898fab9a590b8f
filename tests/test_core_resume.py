"""Resume after kill -9, shared caches across processes, and data-parallel runs equal to one process."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import PLUGIN_PKG, harness_env, run_harness, torchrun_harness

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"


def _args(root, out, cache, log, delay=0.0, extra=()):
    return [
        "--tasks",
        "colors_qa",
        "--model",
        "counting",
        "--model_args",
        f"log={log},delay={delay},wrong_every=3",
        "--data",
        str(root),
        "--output_path",
        str(out),
        "--cache_dir",
        str(cache),
        "--log_samples",
        "--no_progress",
        *extra,
    ]


def _results(out: Path) -> dict:
    (path,) = sorted(out.rglob("results_*.json"))
    data = json.loads(path.read_text())
    return {"results": data["task_results"], "groups": data["group_results"]}


def _cached(cache: Path) -> int:
    db = cache / "responses.sqlite"
    if not db.exists():
        return 0
    return sqlite3.connect(db).execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def _calls(log: Path) -> int:
    return log.read_text().count("\n") if log.exists() else 0


def kill_after(args: list[str], env: dict[str, str], log: Path, n: int) -> None:
    """Start `python -m harness ARGS...` and SIGKILL it once its model logged `n` calls in `log` (or it ended,
    or 120 s passed)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 120
    while _calls(log) < n and proc.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _kill_and_resume(tmp_path, colors_root, plugin_site, kill_after_calls: list[int]):
    env = harness_env(plugin_site)
    ref_out = tmp_path / "ref"
    r = run_harness(
        _args(colors_root, ref_out, tmp_path / "ref_cache", tmp_path / "ref.log", delay=0.03), env
    )
    assert r.returncode == 0, r.stderr
    reference = _results(ref_out)
    for n in kill_after_calls:
        out, cache, log = tmp_path / f"out{n}", tmp_path / f"cache{n}", tmp_path / f"calls{n}.log"
        kill_after(_args(colors_root, out, cache, log, delay=0.03), env, log, n)
        finished = _cached(cache)
        before = _calls(log)
        assert not list(out.rglob("results_*.json")), "a killed run must not leave a results file"
        r = run_harness(_args(colors_root, out, cache, log, delay=0.03), env)  # the same command
        assert r.returncode == 0, r.stderr
        assert _calls(log) - before == 24 - finished, f"kill after {n} calls: a finished call was repeated"
        assert _results(out) == reference


def test_kill_9_then_resume_repeats_no_finished_call(tmp_path, colors_root, plugin_site):
    _kill_and_resume(tmp_path, colors_root, plugin_site, [3, 11, 20])


@pytest.mark.slow
def test_kill_9_at_ten_points(tmp_path, colors_root, plugin_site):
    _kill_and_resume(tmp_path, colors_root, plugin_site, [1, 2, 4, 6, 8, 10, 13, 16, 19, 22])


def test_processes_sharing_one_cache_dir(tmp_path, colors_root, plugin_site):
    env = harness_env(plugin_site)
    cache = tmp_path / "cache"
    grids = [("colors_qa", "0"), ("colors_qa_color", "0"), ("colors_qa", "0"), ("colors_all", "0")]
    procs = []
    for i, (task, _) in enumerate(grids):
        args = _args(colors_root, tmp_path / f"out{i}", cache, tmp_path / "shared.log")  # same model args
        args[1] = task
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "harness", *args],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    assert sqlite3.connect(cache / "responses.sqlite").execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _cached(cache) == 36  # 24 + the 12 colour docs, whose keys overlap: none lost, none duplicated
    for i, (task, _) in enumerate(grids):
        solo = tmp_path / f"solo{i}"
        args = _args(colors_root, solo, tmp_path / f"solo_cache{i}", tmp_path / f"solo{i}.log")
        args[1] = task
        assert run_harness(args, env).returncode == 0
        assert _results(tmp_path / f"out{i}") == _results(solo)


def _torchrun() -> str | None:
    exe = Path(sys.executable).with_name("torchrun")
    try:
        import torch.distributed  # noqa: F401
    except ImportError:
        return None
    return str(exe) if exe.exists() else shutil.which("torchrun")


@pytest.mark.skipif(_torchrun() is None, reason="needs torch (the hf extra) for a 2-rank run")
def test_two_ranks_equal_one_rank(tmp_path, colors_root, plugin_site):
    env = harness_env(plugin_site, OMP_NUM_THREADS="1")
    one = run_harness(_args(colors_root, tmp_path / "one", tmp_path / "c1", tmp_path / "l1"), env)
    assert one.returncode == 0, one.stderr
    env.pop("RANK", None)
    two_args = _args(colors_root, tmp_path / "two", tmp_path / "c2", tmp_path / "l2")
    two = torchrun_harness(_torchrun(), two_args, env, 300)
    assert two.returncode == 0, two.stderr
    assert _results(tmp_path / "one") == _results(tmp_path / "two")
    pids = {line.split()[0] for line in (tmp_path / "l2").read_text().splitlines()}
    assert len(pids) == 2 and _calls(tmp_path / "l2") == 24  # both ranks worked, no sample twice
    ones = sorted((tmp_path / "one").rglob("samples_*.jsonl"))[0].read_text()
    twos = sorted((tmp_path / "two").rglob("samples_*.jsonl"))[0].read_text()
    assert ones == twos


def test_ctrl_c_keeps_finished_samples_and_writes_no_half_results(tmp_path, colors_root, plugin_site):
    env = harness_env(plugin_site)
    out, cache, log = tmp_path / "out", tmp_path / "cache", tmp_path / "calls.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *_args(colors_root, out, cache, log, delay=0.05)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    while _calls(log) < 5 and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    assert "rerun the same command to resume" in proc.stderr.read()
    assert _cached(cache) >= 4 and not list(out.rglob("results_*.json"))
