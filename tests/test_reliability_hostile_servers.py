"""A server that trickles its answer a byte at a time is cut off at the request's total deadline: the request is
a counted error of kind `timeout`, the others are answered, and the run writes its results."""

from __future__ import annotations

import json
import time

from servers.trickle import TrickleServer
from test_reliability_pipeline import _openai_cfg

from harness.contract.messages import Message, Request, TextPart
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness_models.openai_api.adapter import OpenAIModel
from harness_models.openai_api.client import RequestTimeout


def test_a_trickling_server_is_cut_off_at_the_deadline_and_the_run_writes_its_results(
    tmp_path, colors_root, with_plugin
):
    server = TrickleServer(every=3, gap=0.05)
    cfg = _openai_cfg(tmp_path, colors_root, server, concurrency=4, timeout=5, request_deadline=1.0)
    cfg.output_path = tmp_path / "out"
    start = time.monotonic()
    try:
        out = run(cfg, load_plugins())
    finally:
        server.close()
    assert time.monotonic() - start < 30, "each trickled request ends at its 1 s deadline"
    res = out.results["task_results"]["colors_qa"]
    n = res["errors"]["timeout"]  # a trickled request fails the docs that share it (2 each here)
    assert n >= server.trickled >= 3 and res["errors_by_reason"]["timeout"] == {"timeout": n}
    assert "generation" not in res["errors"]  # cut off at the deadline: kind timeout, not a failed call
    (path,) = (tmp_path / "out").rglob("results_*.json")
    assert json.loads(path.read_text())["task_results"]["colors_qa"]["n_errors"] == n


def test_the_deadline_covers_retries_and_is_not_retried():
    server = TrickleServer(every=1, gap=0.02)
    model = OpenAIModel(model="m", base_url=server.url, timeout=5, request_deadline=0.5, max_retries=5)
    start = time.monotonic()
    try:
        (result,) = [
            r
            for _, r in model.generate_iter(
                [Request(messages=[Message("user", [TextPart("q")])], gen_kwargs={}, doc_id="d")]
            )
        ]
    finally:
        model.close()
        server.close()
    assert isinstance(result, RequestTimeout) and result.reason == "timeout"
    assert "request_deadline=0.5s" in str(result)
    assert time.monotonic() - start < 2 and server.count == 1, "cut off once, never retried"
