"""CycliST task plugin end to end on a small dataset the project's builders make (scenes, videos, questions)."""

from __future__ import annotations

import hashlib
import json
import math
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from harness.config.run import RunConfig
from harness.engine.runner import run
from harness_tasks.cyclist.calibration import calibrate
from harness_tasks.cyclist.families import FAMILIES

PLUGIN = Path(__file__).resolve().parents[1] / "tasks" / "cyclist"


def _harness(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "harness", *args], check=True, capture_output=True, text=True)


@pytest.fixture(scope="session")
def cyclist_data(tmp_path_factory) -> Path:
    """L1 test split: 8 scenes of 32 frames at 64x36 (raster), their questions, as `build cyclist` writes
    them (the release's layout under ROOT/cyclist; the tasks get --data ROOT)."""
    root = tmp_path_factory.mktemp("cyclist_data")
    _harness("build", "cyclist", "--tier", "L1", "--split", "test", "--num-scenes", "8", "--frames", "32",
             "--size", "64x36", "--out", str(root / "cyclist"), "--no_progress")  # fmt: skip
    return root


def _run(data: Path, tmp_path: Path, model: str, tasks: list[str], **kw):
    cfg = RunConfig(tasks=tasks, model=model, data=data, output_path=tmp_path / "out", log_samples=True,
                    cache_dir=tmp_path / "cache", **kw)  # fmt: skip
    return run(cfg)


def test_oracle_scores_100_on_every_family_and_f1_1_on_captions(cyclist_data, tmp_path):
    out = _run(cyclist_data, tmp_path, "oracle", ["cyclist_l1", "cyclist_caption_l1"])
    vqa = out.results["task_results"]["cyclist_l1"]
    assert vqa["n_samples"] > 50 and vqa["n_errors"] == 0 and vqa["n_invalid"] == 0
    assert vqa["metrics"]["accuracy"]["value"] == 1.0
    families = vqa["tables"]["families"]
    assert len(families) >= 10
    for fam, cell in families.items():
        assert cell["accuracy"] == 1.0, fam
        assert cell["n_indefinite"] == 0
        if fam.startswith("numeric_"):
            assert cell["mae"] == 0.0
    cap = out.results["task_results"]["cyclist_caption_l1"]
    assert cap["n_samples"] == 8
    for m in ("obj_f1", "obj_precision", "obj_recall", "cycle_f1", "cycle_precision", "cycle_recall"):
        assert cap["metrics"][m]["value"] == 1.0, m
    assert cap["tables"]["table11_objects"]["f1"] == 1.0 and cap["tables"]["table12_cycles"]["n"] == 8


def test_every_table_is_in_results_json_with_sample_counts(cyclist_data, tmp_path):
    out = _run(cyclist_data, tmp_path, "oracle", ["cyclist_l1"])
    saved = json.loads(out.results_path.read_text())
    tables = saved["task_results"]["cyclist_l1"]["tables"]
    assert tables["tier"] == "L1" and tables["tier_name"] == "Unicycle"
    t4 = tables["table4_temporal_descriptive"]
    for q in ("existential", "universal"):
        for c in ("query", "compare", "relate"):
            assert t4[q][c]["n"] > 0 and t4[q][c]["chance"] == 0.5
    for key in ("table7_transition", "table8_counting", "table9_completed_cycles", "table10_period"):
        assert tables[key]["n"] > 0, key
    assert tables["table6_orbit"]["center"]["n"] > 0
    assert "mae" in tables["table8_counting"] and "mae" in tables["table10_period"]
    bd = saved["task_results"]["cyclist_l1"]["breakdowns"]
    assert set(bd["family"]) <= set(FAMILIES) and all(v["n_samples"] > 0 for v in bd["family"].values())


def test_random_lands_within_tolerance_of_the_analytic_chance(cyclist_data, tmp_path):
    """Tolerance: 3 binomial standard errors + 0.05 around the exact expected score of `random`."""
    fam = "descriptive_existential_attributes"
    out = _run(cyclist_data, tmp_path, "random", ["cyclist_l1", f"cyclist_l1_{fam}"])
    for task in ("cyclist_l1", f"cyclist_l1_{fam}"):
        cell = out.results["task_results"][task]["tables"]["overall"]
        p, n = cell["chance_random"], cell["n_scored"]
        assert abs(cell["accuracy"] - p) <= 3 * math.sqrt(p * (1 - p) / n) + 0.05, (task, cell)
    one = out.results["task_results"][f"cyclist_l1_{fam}"]["tables"]["families"][fam]
    assert one["chance_random"] == one["chance"] == 0.5  # one family: random guesses over yes/no only


def test_rule_judge_meets_the_papers_calibration_figures():
    report = calibrate(None)
    assert set(report["cases"]) == {"yes_no", "number", "attribute", "objects"}
    for case, r in report["cases"].items():
        assert r["n_items"] >= 100, case
        assert r["agreement"] >= r["paper"], (case, r["disagreements"])


class _Judge(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that answers judge prompts with scripted strict JSON."""

    prompts: list[str] = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = "".join(
            p.get("text", "") if isinstance(p, dict) else str(p)
            for m in body["messages"]
            for p in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])
        )
        type(self).prompts.append(prompt)
        answer = re.search(r"Model answer: (.*)", prompt)
        text = answer.group(1).strip() if answer else ""
        if "yes/no questions" in prompt:
            reply = {"answer": "yes" if text.lower().startswith("yes") else "no"}
        elif "counting questions" in prompt:
            reply = {"answer": int(re.search(r"\d+", text).group())}
        elif "Allowed values" in prompt:
            reply = {"answer": text.removeprefix("It is ").rstrip(".")}
        else:
            reply = {"mapped_objects": []}
        data = json.dumps({
            "id": "x", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(reply)}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_llm_judge_path_end_to_end_against_a_local_server(cyclist_data, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        args = {
            "model": "judge-llama",
            "base_url": f"http://127.0.0.1:{httpd.server_port}/v1",
            "max_retries": 0,
        }
        out = _run(
            cyclist_data,
            tmp_path,
            "oracle",
            ["cyclist_l1", "cyclist_caption_l1"],
            judge="openai",
            judge_args=args,
        )
        n_calls = len(_Judge.prompts)
        vqa = out.results["task_results"]["cyclist_l1"]
        assert vqa["metrics"]["accuracy"]["value"] == 1.0 and vqa["n_invalid"] == 0
        cap = out.results["task_results"]["cyclist_caption_l1"]
        assert cap["metrics"]["obj_recall"]["value"] == 0.0  # the scripted judge maps no objects
        hashes = out.results["config"]["judge"]["prompt_hashes"]
        assert set(hashes) == {"cyclist/yes_no", "cyclist/number", "cyclist/attribute", "cyclist/objects"}
        assert 0 < n_calls == len(set(_Judge.prompts))  # each distinct judge prompt asked once (cached)
        _run(cyclist_data, tmp_path, "oracle", ["cyclist_l1"], judge="openai", judge_args=args)
        assert len(_Judge.prompts) == n_calls  # every judge call came from the cache the second time
    finally:
        httpd.shutdown()


def test_template_changes_bump_the_task_version():
    """The prompt and judge templates hash to the value recorded for the current version."""
    recorded = json.loads((PLUGIN / "template_hashes.json").read_text())
    digest = hashlib.sha256()
    for p in sorted(PLUGIN.glob("configs/prompts/*.jinja")) + sorted(PLUGIN.glob("judge_prompts/*.jinja")):
        digest.update(p.name.encode() + b"\0" + p.read_bytes())
    for base in ("_base_vqa.yaml", "_base_caption.yaml"):
        version = str(yaml.safe_load((PLUGIN / "configs" / base).read_text())["version"])
        assert recorded.get(version) == digest.hexdigest(), (
            f"templates changed: bump 'version' in configs/{base} and record the new hash for it in template_hashes.json"
        )
