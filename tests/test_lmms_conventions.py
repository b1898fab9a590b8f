"""lmms-eval's calling conventions, on task folders written here in lmms-eval's format (no lmms-eval needed):
aggregations with `args`, run once on all rows; lmms-eval's seeding; numbers as versions; doc_to_messages;
per-model kwargs; doc_to_choice; --data in place of every source; hook imports checked up front."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import textwrap
from pathlib import Path

import pytest
from lmms_eval_compare import replay_plugin

from conftest import harness_env, run_harness
from harness.config.run import RunConfig
from harness.config.schema import parse_task_config
from harness.contract.messages import VideoPart
from harness.data.lmms_task import LmmsTask
from harness.data.run_context import RunContext
from harness.engine.runner import run
from harness.frames.synthetic import write_marker_video
from harness.plugins.extras import MissingDependencyError
from harness.plugins.loading import load_plugins

ROWS = [{"qid": f"q{i}", "video": f"v{i % 3}.mp4", "cat": "xyz"[i % 3], "answer": "ABCD"[i % 4]} for i in range(8)]
REPLIES = ["A", "B", "no idea", "D", "maybe", "B", "C", "unsure"]

UTILS = '''
import os
import random

CALLS = os.environ["LMMS_TEST_CALLS"]


def doc_to_visual(doc):
    return [os.environ["LMMS_TEST_VIDEO"]]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kw = lmms_eval_specific_kwargs or {}
    return f"{kw.get('pre_prompt', '')}Question {doc['qid']}?{kw.get('post_prompt', '')}"


def parse(reply):
    reply = reply.strip()
    return reply if reply in ("A", "B", "C", "D") else random.choice(["A", "B", "C", "D"])  # lmms-eval's fallback


def process_results(doc, results):
    ok = float(parse(results[0]) == doc["answer"])
    return {"acc": ok, "by_cat": {"cat": doc["cat"], "ok": ok}}


def by_cat(results, args):
    with open(CALLS, "a") as f:
        f.write(f"{len(results)}\\n")
    cats = {"x": [], "y": [], "z": []}
    for r in results:
        cats[r["cat"]].append(r["ok"])
    os.makedirs(os.path.join(args.output_path, "submissions"), exist_ok=True)
    with open(os.path.join(args.output_path, "submissions", "by_cat.json"), "w") as f:
        f.write("{}")
    return sum(sum(v) / len(v) for v in cats.values()) / 3  # KeyError/ZeroDivision on a partial resample
'''

YAML = """
task: {task}
dataset_path: someone/hub-only-dataset
dataset_kwargs: {{token: True, video: True, cache_dir: x}}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_target: answer
process_results: !function utils.process_results
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: by_cat
    aggregation: !function utils.by_cat
    higher_is_better: true
lmms_eval_specific_kwargs:
  default: {{pre_prompt: "", post_prompt: " Answer with a letter."}}
  llava_vid: {{pre_prompt: "", post_prompt: " The best answer is:"}}
metadata:
  - version: 0.1
"""


@pytest.fixture
def lmms_folder(tmp_path, monkeypatch):
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "utils.py").write_text(UTILS)
    for name in ("conv_a", "conv_b"):
        (folder / f"{name}.yaml").write_text(YAML.format(task=name))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    monkeypatch.setenv("LMMS_TEST_VIDEO", str(write_marker_video(tmp_path / "v.mp4", 6, 32, 24, fps=6)))
    monkeypatch.setenv("LMMS_TEST_CALLS", str(tmp_path / "calls.txt"))
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"conv_a": REPLIES, "conv_b": REPLIES}))
    return folder, rows, replies


def _run(folder, rows, replies, tmp_path, tasks=("conv_a",), out="out"):
    cfg = RunConfig(
        tasks=list(tasks),
        model="replay",
        model_args={"replies": str(replies)},
        data=rows,
        include_path=[str(folder)],
        cache_dir=tmp_path / "cache",
        output_path=tmp_path / out,
        progress=False,
    )
    return run(cfg, load_plugins(include_paths=[folder], modules=[replay_plugin()])).results


def _expected(seed: int = 0) -> tuple[float, float]:
    """acc and by_cat as lmms-eval computes them: seeded, process_results in doc order."""
    random.seed(seed)
    oks = []
    for row, reply in zip(ROWS, REPLIES, strict=True):
        parsed = reply if reply in ("A", "B", "C", "D") else random.choice(["A", "B", "C", "D"])
        oks.append(float(parsed == row["answer"]))
    cats = {c: [ok for ok, r in zip(oks, ROWS, strict=True) if r["cat"] == c] for c in "xyz"}
    return sum(oks) / len(oks), sum(sum(v) / len(v) for v in cats.values()) / 3


def test_aggregation_takes_args_and_runs_once_on_all_rows(lmms_folder, tmp_path):
    """Before: called 101 times (bootstrap resamples), a partial resample raised and ended the run."""
    res = _run(*lmms_folder, tmp_path)
    m = res["task_results"]["conv_a"]["metrics"]
    assert (tmp_path / "calls.txt").read_text().split() == ["8"]  # once, on all 8 rows
    assert m["by_cat"]["value"] == pytest.approx(_expected()[1])
    assert m["by_cat"]["ci"] is None and "runs once" in m["by_cat"]["ci_note"]
    lo, hi = m["acc"]["ci"]  # a mean: CI from per-sample scores
    assert lo is not None and lo <= m["acc"]["value"] <= hi
    assert (tmp_path / "out" / "replay" / "submissions" / "by_cat.json").exists()  # args.output_path
    assert res["complete"] and res["task_results"]["conv_a"]["version"] == 0.1


def test_random_fallbacks_are_seeded_as_lmms_eval_seeds(lmms_folder, tmp_path):
    """Before: nothing seeded `random`, so a parser's random letter changed the numbers between identical runs."""
    first = _run(*lmms_folder, tmp_path, out="o1")
    second = _run(*lmms_folder, tmp_path, out="o2")
    acc, by_cat = _expected()
    for res in (first, second):
        m = res["task_results"]["conv_a"]["metrics"]
        assert (m["acc"]["value"], m["by_cat"]["value"]) == (pytest.approx(acc), pytest.approx(by_cat))
        cfg = res["config"]
        assert (cfg["random_seed"], cfg["numpy_seed"], cfg["torch_seed"]) == (0, 1234, 1234)
    # seeded before each task: a task's numbers do not depend on the tasks scored before it
    both = _run(*lmms_folder, tmp_path, tasks=("conv_a", "conv_b"), out="o3")
    assert both["task_results"]["conv_b"]["metrics"]["acc"]["value"] == pytest.approx(acc)


def test_own_aggregation_error_is_counted_not_fatal(lmms_folder, tmp_path):
    folder, rows, replies = lmms_folder
    (folder / "utils.py").write_text(UTILS + "\n\ndef by_cat(results, args):\n    raise KeyError('video')\n")
    res = _run(folder, rows, replies, tmp_path)
    entry = res["task_results"]["conv_a"]
    assert entry["metrics"]["by_cat"]["value"] is None and "KeyError" in entry["aggregation_errors"][0]
    assert entry["metrics"]["acc"]["value"] is not None and not res["complete"]


def _lmms_task(tmp_path, **raw) -> LmmsTask:
    base = {"task": "t", "dataset_path": "json", "doc_to_text": "question", "metadata": [{"version": 0.1}]}
    return LmmsTask(parse_task_config({**base, **raw}, str(tmp_path / "t.yaml")), tmp_path)


def test_doc_to_messages_gives_the_turns_and_clips(tmp_path):
    (tmp_path / "u.py").write_text(
        textwrap.dedent(
            """
            def msgs(doc, lmms_eval_specific_kwargs=None):
                kw = lmms_eval_specific_kwargs or {}
                video = {"type": "video", "url": {"path": doc["v"], "video_start": 1.0, "video_end": 2.5}}
                return [
                    {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
                    {"role": "user", "content": [video, {"type": "text", "text": doc["question"] + kw["post"]}]},
                ]
            """
        )
    )
    ref = {"!function": f"{tmp_path / 'u.py'}:msgs"}
    task = _lmms_task(tmp_path, doc_to_messages=ref, lmms_eval_specific_kwargs={"default": {"post": " Short."}})
    msgs = task.build_messages({"doc_id": "0", "v": "/videos/a.mp4", "question": "Why?"})
    assert [m.role for m in msgs] == ["system", "user"]
    video = msgs[1].content[0]
    assert isinstance(video, VideoPart) and video.ref.path == "/videos/a.mp4"
    seg = video.ref.segments[0]
    assert (seg.start, seg.end, seg.unit) == (1.0, 2.5, "second")
    assert msgs[1].content[1].text == "Why? Short."
    assert task.config.version == 0.1


def test_specific_kwargs_and_generation_kwargs_follow_the_model_family(tmp_path):
    kwargs = {"default": {"post": " (default)"}, "llava_vid": {"post": " (llava_vid)"}, "gpt4v": {"post": "x"}}
    task = _lmms_task(
        tmp_path,
        lmms_eval_specific_kwargs=kwargs,
        generation_kwargs={"max_new_tokens": 16},
        model_specific_generation_kwargs={"default": {"max_new_tokens": 32}, "llava_vid": {"max_new_tokens": 8}},
    )
    task = task.with_run(RunContext(model_names=("llava_vid", "llava_video_7b")))
    assert task.specific_kwargs() == {"post": " (llava_vid)"}  # the family's own entry, not merged
    assert task.generation_kwargs()["max_new_tokens"] == 8
    task = task.with_run(RunContext(model_names=("qwen2_5_vl_7b",)))
    assert task.specific_kwargs()["post"] == " (default)" and "gpt4v" in task.specific_kwargs()  # lmms-eval's merge
    assert task.generation_kwargs() == {"max_new_tokens": 32, "until": ["\n\n"]}


def test_doc_to_choice_maps_the_target_index_for_default_scoring(tmp_path):
    task = _lmms_task(
        tmp_path, doc_to_target="{{label}}", doc_to_choice="choices", metric_list=[{"metric": "exact_match"}]
    )
    doc = {"doc_id": "0", "question": "q", "label": 1, "choices": ["cat", "dog"]}
    assert task.target(doc) == 1
    from harness.data.task import Parsed

    assert task.score(Parsed("dog"), 1, doc)["exact_match"] == 1.0
    assert task.score(Parsed("1"), 1, doc)["exact_match"] == 0.0


ROW_FORMATS = ["jsonl", "json", "csv", "parquet"]


def _write(rows: list[dict], path: Path) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows))
    else:
        import datasets

        ds = datasets.Dataset.from_list(rows)
        ds.to_csv(str(path)) if path.suffix == ".csv" else ds.to_parquet(str(path))
    return path


@pytest.mark.parametrize("fmt", ROW_FORMATS)
@pytest.mark.parametrize(
    "source",
    [
        {"dataset_path": "someone/hub-only"},
        {"dataset_path": "json", "dataset_kwargs": {"data_files": {"test": "https://example.invalid/rows.jsonl"}}},
        {"dataset_path": "csv", "dataset_kwargs": {"data_files": "/nowhere/rows.csv"}},
    ],
    ids=["hub-id", "json-url", "csv-local"],
)
def test_data_replaces_every_source_in_every_format(tmp_path, source, fmt):
    """Before: `json` + data_files naming a URL still reached for the URL; `--data FILE.jsonl` failed."""
    pytest.importorskip("datasets")
    rows = [{"question": f"q{i}", "answer": "ab"[i % 2]} for i in range(3)]
    task = _lmms_task(tmp_path, test_split="test", **source)
    data = _write(rows, tmp_path / f"rows.{fmt}")
    assert [d["question"] for d in task.load_docs(data)] == ["q0", "q1", "q2"]
    folder = tmp_path / "folder"  # a folder: the file named like the config's data_files, else `test.<fmt>`
    folder.mkdir()
    _write(rows, folder / f"test.{fmt}")
    assert [d["answer"] for d in task.load_docs(folder)] == ["a", "b", "a"]


LAZY = """
def process_results(doc, results):
    from {module}.tasks._task_utils.mcq_extract import extract_mcq_answer
    return {{"acc": float(extract_mcq_answer(results[0], choices=["A", "B"]) == doc["answer"])}}

try:
    import an_optional_speedup_that_is_not_installed
except ImportError:
    an_optional_speedup_that_is_not_installed = None
"""


@pytest.mark.parametrize("module", ["lmms_eval", "harness_no_such_module"])
def test_task_whose_hooks_import_a_missing_module_is_refused_up_front(tmp_path, module):
    """Before (lvbench): the lazy `import lmms_eval` failed on every sample, each scored as an error."""
    if importlib.util.find_spec(module) is not None:
        pytest.skip(f"{module} is installed here")
    folder = tmp_path / "lazy"
    folder.mkdir()
    (folder / "utils.py").write_text(LAZY.format(module=module))
    (folder / "lazy.yaml").write_text(
        "task: lazy\ndataset_path: json\ndoc_to_text: question\ndoc_to_target: answer\n"
        "process_results: !function utils.process_results\nmetric_list: [{metric: acc}]\n"
    )
    cfg = RunConfig(tasks=["lazy"], model="oracle", include_path=[str(folder)], progress=False)
    with pytest.raises(MissingDependencyError) as err:
        run(cfg, load_plugins(include_paths=[folder]))
    assert err.value.exit_code == 3
    assert f"module '{module}'" in str(err.value) and "lazy" in str(err.value)
    if module == "lmms_eval":
        assert "'lmms' extra" in str(err.value) and ".[lmms]" in str(err.value)
    assert "an_optional_speedup" not in str(err.value)  # guarded by try/except ImportError: not required
    if module == "lmms_eval":  # the CLI: exit 3 and the message, no traceback
        proc = run_harness(["--include_path", str(folder), "--tasks", "lazy", "--model", "oracle"], harness_env())
        assert proc.returncode == 3 and "'lmms' extra" in proc.stderr and "Traceback" not in proc.stderr


def test_the_verified_list_in_the_docs_is_the_list_the_tests_check():
    """docs/plugins.md names exactly the tasks tests/test_lmms_eval_tasks.py compares with lmms-eval."""
    from lmms_eval_compare import task_cases

    text = (Path(__file__).parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = text[text.index("### Verified lmms-eval tasks") : text.index("**Not verified, and why.**")]
    listed = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            listed |= set(re.findall(r"`([\w@.-]+)`", line.split(" | ")[0]))
    checked = {task for _, task in task_cases()}
    assert listed == checked and len(checked) >= 30
    assert f"These {len(checked)} lmms-eval tasks" in section
