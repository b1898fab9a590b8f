"""`python -m harness cache`: what a real run left in the cache dir (responses by model and task, frames,
hashes; size and age), and pruning by model, task, age and total size leaves a cache the next run uses."""

from __future__ import annotations

import os
import time

import pytest

from conftest import run_in
from harness.cache.inventory import inventory, parse_age, parse_size, response_rows
from harness.cli.main import main as cli_main
from harness.errors import ConfigError
from harness.plugins.loading import load_plugins


@pytest.fixture
def filled(tmp_path, with_plugin, colors_root):
    """A cache dir after `oracle` and `random` ran colors_qa (responses of both, frames, hashes)."""
    state = load_plugins()
    for model in ("oracle", "random"):
        run_in(tmp_path, ["colors_qa"], model, colors_root, state, progress=False, log_samples=False)
    return tmp_path / "c"


def _parts(cache_dir):
    return {p.name: p for p in inventory(cache_dir)}


def test_cache_shows_what_a_run_left_by_part_model_and_task(filled, capsys):
    assert cli_main(["cache", "--cache_dir", str(filled)]) == 0
    out = capsys.readouterr().out
    parts = _parts(filled)
    assert parts["responses"].entries == 48 and parts["frames"].entries > 0 and parts["hashes"].entries > 0
    for line in ("responses", "frames", "hashes", "total"):
        assert any(row.startswith(line) for row in out.splitlines()), out
    assert "(cap 20.0 GiB)" in out and "s ago" in out
    assert [(m, t, n) for m, t, n, _, _ in response_rows(filled)] == [("oracle", "colors_qa", 24), ("random", "colors_qa", 24)]
    assert "oracle" in out and "colors_qa" in out


def test_prune_by_model_keeps_the_other_models_responses(filled, tmp_path, colors_root, capsys):
    assert cli_main(["cache", "prune", "--cache_dir", str(filled), "--model", "random"]) == 0
    assert "24 rows deleted" in capsys.readouterr().out
    assert [(m, n) for m, _, n, _, _ in response_rows(filled)] == [("oracle", 24)]
    state = load_plugins()  # the pruned cache still serves the rest: a rerun of oracle calls nothing
    out = run_in(tmp_path, ["colors_qa"], "oracle", colors_root, state, progress=False, log_samples=False)
    assert out.results["task_results"]["colors_qa"]["metrics"]["accuracy"]["value"] == 1.0


def test_prune_older_than_drops_old_responses_and_unused_frames(filled):
    old = time.time() - 3 * 86400
    for f in (filled / "frames").rglob("*.frames"):
        os.utime(f, (old, old))
    assert cli_main(["cache", "prune", "--cache_dir", str(filled), "--older-than", "2d"]) == 0
    parts = _parts(filled)
    assert parts["frames"].entries == 0 and parts["responses"].entries == 48  # the responses are minutes old
    assert cli_main(["cache", "prune", "--cache_dir", str(filled), "--task", "colors_qa"]) == 0
    assert _parts(filled)["responses"].entries == 0


def test_prune_max_size_brings_the_dir_under_the_size(filled):
    before = sum(p.size for p in inventory(filled))
    limit = before // 2
    assert cli_main(["cache", "prune", "--cache_dir", str(filled), "--max-size", str(limit)]) == 0
    assert sum(p.size for p in inventory(filled)) <= limit
    assert _parts(filled)["frames"].entries == 0 or _parts(filled)["responses"].entries == 48  # frames go first


def test_bad_values_and_a_prune_without_flags_are_one_line_errors(tmp_path, capsys):
    assert parse_size("1.5G") == int(1.5 * 2**30) and parse_size("500M") == 500 * 2**20 and parse_age("2w") == 14 * 86400
    with pytest.raises(ConfigError, match="'lots'"):
        parse_size("lots")
    assert cli_main(["cache", "prune", "--cache_dir", str(tmp_path)]) == 2
    assert "say what to prune" in capsys.readouterr().err
    assert cli_main(["cache", "prune", "--older-than", "soon"]) == 2
    assert "age 'soon' is not an age" in capsys.readouterr().err


def test_a_second_run_in_the_process_fills_its_own_cache_dirs_hash_index(tmp_path, with_plugin, colors_root):
    """Hashes remembered in memory from a run on one cache dir do not leave another cache dir's index empty
    (a grid's cells or two evaluate() calls in one process): the bug made `cache` show 0 hashes."""
    state = load_plugins()
    for name in ("a", "b"):
        run_in(tmp_path / name, ["colors_qa"], "oracle", colors_root, state, progress=False, log_samples=False)
        assert _parts(tmp_path / name / "c")["hashes"].entries > 0, name


def test_the_frame_cache_cap_comes_from_the_environment(tmp_path, with_plugin, colors_root, monkeypatch, capsys):
    """HARNESS_FRAME_CACHE_MB caps the frames a run keeps (0: none) and `cache` shows that cap; a value that is
    no size is one line, exit 2 (before, the 20 GiB cap could be changed only by pruning afterwards)."""
    monkeypatch.setenv("HARNESS_FRAME_CACHE_MB", "0")
    run_in(tmp_path, ["colors_qa"], "oracle", colors_root, load_plugins(), progress=False, log_samples=False)
    cache_dir = tmp_path / "c"
    assert _parts(cache_dir)["frames"].entries == 0 and _parts(cache_dir)["responses"].entries == 24
    monkeypatch.setenv("HARNESS_FRAME_CACHE_MB", "512")
    assert cli_main(["cache", "--cache_dir", str(cache_dir)]) == 0
    assert "(cap 512.0 MiB)" in capsys.readouterr().out
    monkeypatch.setenv("HARNESS_FRAME_CACHE_MB", "lots")
    assert cli_main(["cache", "--cache_dir", str(cache_dir)]) == 2
    assert "HARNESS_FRAME_CACHE_MB='lots' is not a whole number" in capsys.readouterr().err
