"""Response cache: keys cover every input and nothing else; shared by processes; survives a full disk."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import subprocess
import sys

import numpy as np

from conftest import harness_env
from harness.cache.keys import response_key
from harness.cache.responses import ResponseCache
from harness.contract.messages import Message, TextPart, VideoPart
from harness.data.media import Segment, VideoRef
from harness.frames.spec import FrameSpec
from harness.frames.writer import write_video


def _video(path, value):
    write_video(path, [np.full((16, 16, 3), value, np.uint8)] * 4, fps=4)
    return path


def _key(video, text="What?", model=None, gen=None, spec=None, segments=None, decoder="pyav-1", hints=None):
    ref = VideoRef(path=str(video), segments=segments)
    msgs = [Message("user", [VideoPart(ref=ref), TextPart(text)])]
    return response_key(
        model or {"name": "m", "args": {"a": 1}},
        gen or {"max_new_tokens": 8},
        msgs,
        spec or FrameSpec(strategy="uniform", count=4),
        decoder,
        hints,
    )


def test_key_changes_with_every_input_and_only_then(tmp_path):
    a = _video(tmp_path / "a.mp4", 10)
    base = _key(a)
    assert _key(a) == base
    # same content under another name: same key (content identity, not path)
    b = tmp_path / "copy.mp4"
    b.write_bytes(a.read_bytes())
    assert _key(b) == base
    variants = {
        "text": _key(a, text="What? "),
        "model args": _key(a, model={"name": "m", "args": {"a": 2}}),
        "model name": _key(a, model={"name": "n", "args": {"a": 1}}),
        "gen kwargs": _key(a, gen={"max_new_tokens": 9}),
        "frame count": _key(a, spec=FrameSpec(strategy="uniform", count=5)),
        "max side": _key(a, spec=FrameSpec(strategy="uniform", count=4, max_side=64)),
        "decoder": _key(a, decoder="decord-1"),
        "segments": _key(a, segments=(Segment(start=0, end=2),)),
        "reverse": _key(a, segments=(Segment(start=0, end=2, reverse=True),)),
        "hints": _key(a, hints={"seed": 1}),
        "content": _key(_video(tmp_path / "c.mp4", 200)),
    }
    assert base not in variants.values()
    assert len(set(variants.values())) == len(variants)


def _writer(path, start, n):
    cache = ResponseCache(path)
    for i in range(start, start + n, 5):
        cache.put_many(
            [(f"k{j}", {"response": {"text": str(j)}}, "m", "t") for j in range(i, min(i + 5, start + n))]
        )
    cache.close()


def test_two_processes_share_one_cache(tmp_path):
    path = tmp_path / "responses.sqlite"
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, s, 300)) for s in (0, 150)]  # overlapping keys
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    cache = ResponseCache(path)
    got = cache.get_many([f"k{j}" for j in range(450)])
    assert len(got) == 450 and all(got[f"k{j}"]["response"]["text"] == str(j) for j in range(450))
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


OPEN_AT_ONCE = """
import multiprocessing as mp
import sys
from pathlib import Path

from harness.cache.responses import ResponseCache


def opener(path, queue):
    cache = ResponseCache(path)
    queue.put(cache.disabled_reason)
    cache.close()


if __name__ == "__main__":
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    reasons = []
    for trial in range(40):
        queue = ctx.Queue()
        procs = [
            ctx.Process(target=opener, args=(Path(sys.argv[1]) / f"t{trial}" / "responses.sqlite", queue))
            for _ in range(6)
        ]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        reasons += [queue.get(timeout=60) for _ in procs]
    print([r for r in reasons if r is not None])
"""


def test_processes_opening_a_new_cache_at_once_all_get_it(tmp_path):
    """Six processes open one new file together, 40 times: the switch to WAL can answer SQLITE_BUSY without
    SQLite's busy handler, which disabled about 1 open in 100 (and once failed the test above in CI). The six
    are forked from a fresh interpreter that imports only the cache: forked from a pytest process holding
    torch, the same 240 opens took ten times as long."""
    script = tmp_path / "open_at_once.py"
    script.write_text(OPEN_AT_ONCE)
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        env=harness_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_full_disk_disables_cache_and_run_goes_on(tmp_path, caplog):
    cache = ResponseCache(tmp_path / "r.sqlite")

    class FullDisk:
        def execute(self, *a, **k):
            raise sqlite3.OperationalError("database or disk is full")

        executemany = execute

    cache._conn = FullDisk()
    cache.put_many([("k", {"response": {"text": "x"}}, "m", "t")])  # no exception
    assert cache.disabled_reason and "disk is full" in cache.disabled_reason
    assert cache.get("k") is None
    assert "response cache disabled" in caplog.text


def test_a_clips_own_frame_spec_is_in_the_key(tmp_path):
    a = _video(tmp_path / "a.mp4", 10)
    spec = FrameSpec(strategy="uniform", count=4)

    def key(part_spec):
        msgs = [Message("user", [VideoPart(ref=VideoRef(path=str(a)), spec=part_spec), TextPart("q")])]
        return response_key({"name": "m"}, {}, msgs, spec, "pyav-1")

    assert key(None) != key(FrameSpec(strategy="uniform", count=8))
    assert key(FrameSpec(strategy="uniform", count=8)) == key(FrameSpec(strategy="uniform", count=8))
