"""A response-cache row is served only when it matches its checksum: a flipped byte is a miss, recomputed."""

from __future__ import annotations

import logging
import sqlite3

from test_core_resume import _calls
from test_reliability_pipeline import _cfg

from harness.cache.responses import ResponseCache
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.results.writer import read_samples


def _flip_one_byte(db_path, where: str) -> None:
    """Change one character of the first stored value, keeping it valid JSON (the attack checksums stop)."""
    db = sqlite3.connect(db_path)
    rowid, value = db.execute("SELECT rowid, value FROM responses ORDER BY rowid LIMIT 1").fetchone()
    i = value.index(where) + len(where)
    flipped = value[:i] + chr(ord(value[i]) ^ 1) + value[i + 1 :]
    db.execute("UPDATE responses SET value = ? WHERE rowid = ?", (flipped, rowid))
    db.commit()
    db.close()


def test_a_flipped_byte_in_a_stored_answer_is_recomputed_not_served(
    tmp_path, colors_root, with_plugin, caplog
):
    log = tmp_path / "calls.log"
    cfg = _cfg(tmp_path, colors_root, log_samples=True, output_path=tmp_path / "out")
    cfg.model_args = {"log": str(log), "wrong_every": "3"}
    first = run(cfg, load_plugins())
    reference = read_samples(first.samples_paths["colors_qa"])
    assert _calls(log) == 24
    _flip_one_byte(tmp_path / "cache" / "responses.sqlite", '"text": "')
    with caplog.at_level(logging.WARNING, logger="harness.cache"):
        again = run(cfg, load_plugins())
    assert "checksum mismatch" in caplog.text
    assert _calls(log) == 25, "the model is asked again for the corrupt row"
    assert again.stats["cache_rejected"] == 1 and again.stats["cache_hits"] == 23
    assert read_samples(again.samples_paths["colors_qa"]) == reference, "the served answer is the model's"
    assert again.results["task_results"] == first.results["task_results"]


def test_rows_without_a_checksum_are_misses_and_old_files_gain_the_column(tmp_path):
    path = tmp_path / "responses.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, model TEXT, task TEXT, created REAL)"
    )
    db.execute("INSERT INTO responses VALUES ('k', '{\"response\": {\"text\": \"old\"}}', 'm', 't', 0)")
    db.commit()
    db.close()
    cache = ResponseCache(path, shard=None)
    assert cache.get("k") is None and cache.rejected == 1
    cache.put_many([("k", {"response": {"text": "new"}}, "m", "t")])
    assert cache.get("k") == {"response": {"text": "new"}}
    cache.close()
