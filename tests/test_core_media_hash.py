"""Hash once: content hashes are kept per file version in the run's HashStore and the cache dir's hash index,
so a rerun reads no video to key its requests; first-time hashing runs in parallel threads with a progress
bar; processes sharing a cache dir share hashes, and a damaged or torn index line is hashed again, never
trusted. Nothing is remembered process-wide: each store (each run) has its own."""

from __future__ import annotations

import os
import shutil

import pytest

from harness.api import media_identity
from harness.cache import hash_index
from harness.config.run import RunConfig
from harness.data.run_context import RunContext
from harness.engine.evaluator import Evaluator
from harness.engine.runner import build_task, load_model, run
from harness.engine.sample import Instance
from harness.frames import content_hash as media_hash
from harness.frames import loader, probe
from harness.frames.content_hash import HashStore, hash_files
from harness.plugins.loading import load_plugins


@pytest.fixture
def fresh_memo():
    """As if in a new process: no video probed yet (content hashes live in each run's own store)."""
    probe.forget()


def _entries(folder) -> list[list]:
    """The index's lines, parsed (every log and merged file in the folder)."""
    import json

    return [json.loads(line) for p in sorted(folder.glob("*.jsonl")) for line in p.read_text().splitlines()]


def _forbid_reading(monkeypatch):
    def refuse(path, *a, **k):
        raise AssertionError(f"a video was read: {path}")

    monkeypatch.setattr(media_hash, "_read_digest", refuse)
    monkeypatch.setattr(loader, "index_video", refuse)


def test_a_rerun_reads_no_video_to_key_its_requests(tmp_path, colors_root, with_plugin, fresh_memo, monkeypatch):
    cfg = RunConfig(
        tasks=["colors_qa"], model="oracle", data=colors_root, cache_dir=tmp_path / "c", progress=False
    )
    first = run(cfg, load_plugins())
    assert first.stats["generated"] == 24
    assert len(_entries(tmp_path / "c" / "hashes")) == 12  # one entry per video version, in one log
    assert len(list((tmp_path / "c" / "hashes").iterdir())) == 1
    probe.forget()
    _forbid_reading(monkeypatch)
    again = run(cfg, load_plugins())
    assert again.stats == {"cache_hits": 24, "generated": 0, "clips_loaded": 0, "cache_rejected": 0}
    assert again.results["task_results"]["colors_qa"]["metrics"] == first.results["task_results"]["colors_qa"]["metrics"]


def test_a_changed_or_damaged_entry_is_hashed_again(tmp_path, colors_root, fresh_memo, monkeypatch):
    store = HashStore(tmp_path / "hashes")
    video = tmp_path / "v.mp4"
    shutil.copy(colors_root / "colors" / "videos" / "test_000.mp4", video)
    first = media_identity(video, store)
    other = colors_root / "colors" / "videos" / "test_001.mp4"
    shutil.copy(other, video)  # replaced in place: new size / mtime, new hash
    os.utime(video, ns=(1, 1))
    assert media_identity(video, store) == media_identity(other, store) != first
    assert len(_entries(tmp_path / "hashes")) == 3  # 2 versions + other
    store.close()
    store = HashStore(tmp_path / "hashes")  # a new run
    (log,) = (tmp_path / "hashes").glob("log-*.jsonl")
    lines = log.read_text().splitlines()
    damaged = [line.replace(line[-20:-14], "000000") for line in lines]  # digests changed: CRCs fail
    log.write_text("not a digest\n" + "\n".join(damaged) + "\n")
    read = []
    real = media_hash._read_digest
    monkeypatch.setattr(media_hash, "_read_digest", lambda p, st: read.append(p) or real(p, st))
    assert media_identity(video, store) == media_identity(other, store)  # damaged entries: recomputed, not trusted
    assert len(read) == 2
    store.close()


def test_first_time_hashing_is_parallel_with_a_progress_bar(tmp_path, colors_root, fresh_memo, capsys, monkeypatch):
    store = HashStore(tmp_path / "hashes")
    videos = sorted((colors_root / "colors" / "videos").glob("*.mp4"))
    threads = set()
    real = media_hash._read_digest

    def spy(path, st):
        import threading

        threads.add(threading.get_ident())
        return real(path, st)

    monkeypatch.setattr(media_hash, "_read_digest", spy)
    digests = hash_files([*videos, *videos], store, workers=4, progress=True)
    assert sorted(digests) == sorted(map(str, videos))
    assert "hashing videos" in capsys.readouterr().err
    assert len(threads) > 1 and threading_is_not_main(threads)
    threads.clear()
    assert hash_files(videos, store, workers=4) == digests  # all known now: nothing read
    assert not threads
    assert all(media_identity(v, store) == digests[str(v)] for v in videos)
    store.close()


def threading_is_not_main(idents) -> bool:
    import threading

    return threading.main_thread().ident not in idents


def test_processes_sharing_a_cache_dir_share_hashes(tmp_path, colors_root):
    """Two writers (as two processes: two indexes on one folder) each append to their own log; a reader
    that loaded before the other wrote sees the new entries on refresh, and a torn last line only later."""
    videos = sorted((colors_root / "colors" / "videos").glob("*.mp4"))[:2]
    keys = [media_hash.version_key(v, os.stat(v)) for v in videos]
    a = hash_index.HashIndex(tmp_path, 1)
    b = hash_index.HashIndex(tmp_path, 1)
    a.add(keys[0], "a" * 32)
    assert b.get(keys[0]) == "a" * 32 and b.get(keys[1]) is None
    assert a.get(keys[1]) is None  # a loads the folder now
    b.add(keys[1], "b" * 32)
    assert a.get(keys[1]) is None  # loaded already: not read again on every lookup
    assert a.get(keys[1], refresh=True) == "b" * 32
    assert len(list(tmp_path.glob("log-*.jsonl"))) == 2
    (b_log,) = [p for p in tmp_path.glob("log-*.jsonl") if "b" * 32 in p.read_text()]
    c = hash_index.HashIndex(tmp_path, 1)
    line = hash_index._line(repr((1, "x")), "c" * 32)
    with open(b_log, "a") as f:
        f.write(line[:20])  # a line still being written
    c.refresh()
    assert repr((1, "x")) not in c._entries
    with open(b_log, "a") as f:
        f.write(line[20:])
    c.refresh()
    assert c._entries[repr((1, "x"))] == "c" * 32
    for index in (a, b, c):
        index.close()


def test_many_logs_are_folded_into_one(tmp_path):
    for i in range(hash_index.COMPACT_AT + 3):  # as many runs, each its own process and log
        index = hash_index.HashIndex(tmp_path, 1)
        index.add(("v", i), f"{i:032x}")
        index.close()
    reader = hash_index.HashIndex(tmp_path, 1)
    assert reader.get(("v", 0)) == f"{0:032x}"
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == ["merged"]
    fresh = hash_index.HashIndex(tmp_path, 1)
    assert all(fresh.get(("v", i)) == f"{i:032x}" for i in range(hash_index.COMPACT_AT + 3))


def test_a_read_only_cache_dir_keeps_hashes_in_memory(tmp_path, colors_root, fresh_memo, monkeypatch):
    folder = tmp_path / "hashes"
    folder.write_text("a file where the folder should be")  # the index cannot be written
    store = HashStore(folder)
    video = colors_root / "colors" / "videos" / "test_000.mp4"
    read = []
    real = media_hash._read_digest
    monkeypatch.setattr(media_hash, "_read_digest", lambda p, st: read.append(p) or real(p, st))
    assert media_identity(video, store) == media_identity(video, store)
    assert len(read) == 1  # remembered in memory


def test_two_runs_alive_in_one_process_each_fill_their_own_index(tmp_path, colors_root):
    """Two runs' stores open at once (a grid worker, two evaluate() calls; before, the last run to start
    named the one process-wide index): each run's hashes go to its own cache dir's index."""
    videos = sorted((colors_root / "colors" / "videos").glob("*.mp4"))[:3]
    with HashStore(tmp_path / "a") as a, HashStore(tmp_path / "b") as b:
        hash_files(videos, a)
        hash_files(videos[:1], b)
        assert media_identity(videos[1], a) == hash_files(videos[1:2], b)[str(videos[1])]
    assert len(_entries(tmp_path / "a")) == 3
    assert len(_entries(tmp_path / "b")) == 2  # its own two, hashed again: a's memory is a's


def test_without_a_store_nothing_is_remembered_in_the_process(tmp_path, colors_root, monkeypatch):
    video = colors_root / "colors" / "videos" / "test_000.mp4"
    read = []
    real = media_hash._read_digest
    monkeypatch.setattr(media_hash, "_read_digest", lambda p, st: read.append(p) or real(p, st))
    assert media_identity(video) == media_identity(video)
    assert len(read) == 2  # hashed each time: no module-global memo holds it
    store = HashStore()  # in memory only (--no_cache)
    assert media_identity(video, store) == media_identity(video, store) == media_identity(video)
    assert len(read) == 4 and not list(tmp_path.iterdir())


def test_two_evaluators_alive_at_once_each_key_into_their_own_cache_dir(tmp_path, colors_root, with_plugin):
    """Before, the evaluator made last named the one process-wide index: the first one's hashes went there."""
    state = load_plugins()

    def evaluator(name: str) -> tuple[Evaluator, list[Instance]]:
        cfg = RunConfig(tasks=["colors_qa"], model="oracle", data=colors_root, cache_dir=tmp_path / name, progress=False)
        task = build_task(state, "colors_qa", cfg.data, cfg.cache_dir, RunContext(progress=False))
        split = task.load_split(cfg.data, None)
        task = task.with_split(split)
        ev = Evaluator(cfg, load_model(state, "oracle", {}, [task]), [task])
        return ev, [Instance(i, task, d) for i, d in enumerate(split.docs)]

    (a, on_a), (b, on_b) = evaluator("a"), evaluator("b")
    a.run_instances(on_a)
    assert a.stats["generated"] == 24 and len(_entries(tmp_path / "a" / "hashes")) == 12
    assert not (tmp_path / "b" / "hashes").exists()
    b.run_instances(on_b)
    assert b.stats["generated"] == 24 and len(_entries(tmp_path / "b" / "hashes")) == 12
