"""Hash once: content hashes are kept per file version in the cache dir, so a rerun reads no video to key
its requests; first-time hashing runs in parallel threads with a progress bar."""

from __future__ import annotations

import os
import shutil

import pytest

from harness import media_hash
from harness.frames import loader, probe
from harness.media import media_identity
from harness.plugins import load_plugins
from harness.run_config import RunConfig
from harness.runner import run


@pytest.fixture
def fresh_memo(monkeypatch):
    """As if in a new process: nothing remembered in memory (the on-disk store is what remains)."""
    monkeypatch.setattr(media_hash, "_memo", {})
    monkeypatch.setattr(probe, "_memo", {})
    yield
    media_hash.set_store(None)


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
    stored = [p for p in (tmp_path / "c" / "hashes").rglob("*") if p.is_file()]
    assert len(stored) == 12  # one entry per video version
    monkeypatch.setattr(media_hash, "_memo", {})
    monkeypatch.setattr(probe, "_memo", {})
    _forbid_reading(monkeypatch)
    again = run(cfg, load_plugins())
    assert again.stats == {"cache_hits": 24, "generated": 0}
    assert again.results["results"]["colors_qa"]["metrics"] == first.results["results"]["colors_qa"]["metrics"]


def test_a_changed_or_damaged_entry_is_hashed_again(tmp_path, colors_root, fresh_memo, monkeypatch):
    media_hash.set_store(tmp_path / "hashes")
    video = tmp_path / "v.mp4"
    shutil.copy(colors_root / "colors" / "videos" / "test_000.mp4", video)
    first = media_identity(video)
    other = colors_root / "colors" / "videos" / "test_001.mp4"
    shutil.copy(other, video)  # replaced in place: new size / mtime, new hash
    os.utime(video, ns=(1, 1))
    assert media_identity(video) == media_identity(other) != first
    assert len([p for p in (tmp_path / "hashes").rglob("*") if p.is_file()]) == 3  # 2 versions + other
    monkeypatch.setattr(media_hash, "_memo", {})
    for p in (tmp_path / "hashes").rglob("*"):
        if p.is_file():
            p.write_text("not a digest")
    assert media_identity(video) == media_identity(other)  # damaged entries: recomputed, not trusted


def test_first_time_hashing_is_parallel_with_a_progress_bar(tmp_path, colors_root, fresh_memo, capsys, monkeypatch):
    media_hash.set_store(tmp_path / "hashes")
    videos = sorted((colors_root / "colors" / "videos").glob("*.mp4"))
    threads = set()
    real = media_hash._read_digest

    def spy(path, st):
        import threading

        threads.add(threading.get_ident())
        return real(path, st)

    monkeypatch.setattr(media_hash, "_read_digest", spy)
    assert media_hash.hash_files([*videos, *videos], workers=4, progress=True) == len(videos)
    assert "hashing videos" in capsys.readouterr().err
    assert len(threads) > 1 and threading_is_not_main(threads)
    assert media_hash.hash_files(videos, workers=4) == 0  # all known now: nothing read
    assert all(media_identity(v) for v in videos)


def threading_is_not_main(idents) -> bool:
    import threading

    return threading.main_thread().ident not in idents
