"""lmms-eval's own task folders run by the harness and by lmms-eval's functions on identical replies.

A fixture (`tests/lmms_fixtures/<name>.json`, data written for these tests) holds a few rows in a task's schema
and one fixed reply per row: `{"folder": <folder under lmms_eval/tasks>, "tasks": [names], "rows": [...],
"replies": [...], "media": [paths under $HF_HOME, optional]}`. For each task the folder is copied unchanged from the installed lmms-eval; the videos its
`doc_to_visual` asks for (under `$HF_HOME`, as lmms-eval lays them out) are made tiny; then

- lmms-eval builds the task (`TaskManager`, its YAML as it is; only the hub download is replaced by the
  fixture's rows), seeds as `simple_evaluate` does, calls `process_results(doc, [reply])` on each doc in order
  (serially: `--process_docs_parallel 1`) and each metric's aggregation on all values, with `args=` where the
  function takes it, as `evaluator_utils.TaskOutput.calculate_aggregate_metric` does;
- the harness runs the same folder (`--include_path`) on the same rows (`--data FILE`) with a model that gives
  the same replies.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import re
import shutil
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from harness.api import Capabilities, Model, Response
from harness.hookspecs import hookimpl

FIXTURES = Path(__file__).parent / "lmms_fixtures"
_PATH_IN_MESSAGE = re.compile(r"(/[^\s'\"]+\.(?:mp4|MP4|mkv|webm|avi|mov|jpg|jpeg|png))")


def fixtures() -> list[dict]:
    """Every fixture, with its file name as `name`."""
    out = []
    for p in sorted(FIXTURES.glob("*.json")):
        fx = json.loads(p.read_text(encoding="utf-8"))
        fx["name"] = p.stem
        out.append(fx)
    return out


def task_cases() -> list[tuple[str, str]]:
    """(fixture name, task name) for every task of every fixture."""
    return [(fx["name"], t) for fx in fixtures() for t in fx["tasks"]]


def lmms_tasks_dir() -> Path:
    import lmms_eval  # noqa: PLC0415 - present only in lmms-eval's environment

    return Path(lmms_eval.__file__).parent / "tasks"


class ReplayModel(Model):
    """Replies from a JSON file {task: [reply of doc 0, reply of doc 1, ...]} (doc ids are row indices)."""

    name = "replay"
    capabilities = Capabilities(video=True, multi_video=True, images=True)

    def __init__(self, replies: str = "", **kw: Any) -> None:
        super().__init__(replies=replies, **kw)
        self.replies = json.loads(Path(replies).read_text(encoding="utf-8"))

    def generate(self, requests):
        return [Response(text=self.replies[r.task][int(r.doc_id)]) for r in requests]


class _Plugin:
    @hookimpl
    def register_models(register):
        register("replay", ReplayModel, "test model: fixed replies per task and doc")


def replay_plugin():
    mod = type(sys)("harness_test_replay_plugin")
    mod.register_models = _Plugin.register_models
    return mod


def copy_folder(folder: str, dest: Path) -> Path:
    """lmms-eval's task folder (its top folder, so includes of sibling files resolve) copied unchanged."""
    top = folder.split("/")[0]
    target = dest / top
    if not target.exists():
        shutil.copytree(lmms_tasks_dir() / top, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target / folder[len(top) + 1 :] if "/" in folder else target


def write_rows(rows: list[dict], path: Path, image_fields: list[str] = ()) -> Path:
    """The fixture's rows as JSON lines; with `image_fields` (each row's value there: [width, height]) as a
    parquet file whose columns of those names are `datasets` images, read back as PIL images on both sides."""
    if not image_fields:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path
    import datasets  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415

    table = [
        {k: Image.new("RGB", tuple(v), (90, 140, 200)) if k in image_fields else v for k, v in r.items()} for r in rows
    ]
    features = datasets.Dataset.from_list(
        [{k: v for k, v in r.items() if k not in image_fields} for r in rows]
    ).features
    for field in image_fields:
        features[field] = datasets.Image()
    path = path.with_suffix(".parquet")
    datasets.Dataset.from_list(table, features=features).to_parquet(str(path))
    return path


def build_lmms_task(folder: Path, task: str, rows_file: Path):
    """lmms-eval's task object from its YAML, its docs read from `rows_file` (the hub download replaced)."""
    return build_lmms_task_dict(folder, task, rows_file)[task]


def build_lmms_task_dict(folder: Path, task: str, rows_file: Path) -> dict:
    """lmms-eval's `get_task_dict([task])` (a group: {ConfigurableGroup: {name: task}}), docs from `rows_file`."""
    import datasets  # noqa: PLC0415
    from lmms_eval.api.task import ConfigurableTask  # noqa: PLC0415
    from lmms_eval.tasks import TaskManager, get_task_dict  # noqa: PLC0415

    def download(self, dataset_kwargs=None):  # what ConfigurableTask.download does after load_dataset
        split = self.config.test_split or self.config.validation_split
        builder = "parquet" if Path(rows_file).suffix == ".parquet" else "json"
        rows = datasets.load_dataset(builder, data_files={split: str(rows_file)}, split=split)
        self.dataset = datasets.DatasetDict({split: rows})
        if self.config.process_docs is not None:
            self.dataset[split] = self.config.process_docs(self.dataset[split])
        self.dataset_no_image = self.dataset

    original = ConfigurableTask.download
    ConfigurableTask.download = download
    try:
        return get_task_dict([task], TaskManager(include_path=str(folder), include_defaults=False))
    finally:
        ConfigurableTask.download = original


def make_media(task_obj, video: Path, listed: list[str] = (), hf_home: Path = None) -> int:
    """Create every file the task's doc_to_visual names (a copy of `video`, or a tiny image); returns how
    many. Functions that stop on a missing file (sys.exit, an error naming the path) are asked again; files
    a function neither returns nor names when missing are listed in the fixture (`media`, under $HF_HOME)."""
    made = sum(_create(Path(hf_home) / rel, video) for rel in listed)
    for doc in task_obj.eval_docs:
        for _ in range(4):
            try:
                visuals = task_obj.doc_to_visual(doc) or []
            except (SystemExit, Exception) as exc:  # noqa: BLE001 - the message names the missing file
                found = _PATH_IN_MESSAGE.findall(str(exc))
                if not found:
                    raise
                made += _create(Path(found[0]), video)
                continue
            for v in visuals:
                path = v.get("path") or v.get("url") if isinstance(v, dict) else v
                if isinstance(path, str) and not os.path.exists(path):
                    made += _create(Path(path), video)
            break
    return made


def _create(path: Path, video: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in (".jpg", ".jpeg", ".png"):
        from PIL import Image  # noqa: PLC0415

        Image.new("RGB", (32, 24), (200, 40, 40)).save(path)
    else:
        shutil.copy(video, path)
    return 1


def lmms_prompts(task_obj) -> list[str]:
    """The text lmms-eval puts after the visuals for each doc (doc_to_messages' text for a chat task)."""
    out = []
    for doc in task_obj.eval_docs:
        if getattr(task_obj.config, "doc_to_messages", None) is not None:
            msgs = task_obj.doc_to_messages(doc)
            out.append("".join(c["text"] for m in msgs for c in m["content"] if c["type"] == "text"))
        else:
            out.append(task_obj.config.description + task_obj.doc_to_text(doc))
    return out


def lmms_numbers(task_obj, replies: list[str], output_path: Path) -> dict[str, Any]:
    """lmms-eval's metric values on these replies (seeded as simple_evaluate seeds, scored in doc order)."""
    random.seed(0)
    np.random.seed(1234)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(1234)
    per_metric: dict[str, list] = defaultdict(list)
    docs = list(task_obj.eval_docs)
    for ensemble in task_obj._filters:  # FilterEnsemble.apply on the instances' resps, all docs at once
        resps = [[reply] for reply in replies]
        for f in ensemble.filters:
            resps = f.apply(resps, docs)
        for doc, filtered in zip(docs, list(resps), strict=True):
            for metric, value in task_obj.process_results(doc, [filtered]).items():
                key = metric if ensemble.name == "none" else f"{metric},{ensemble.name}"
                per_metric[key].append(value)
    args = argparse.Namespace(output_path=str(output_path))
    out = {}
    for key, items in per_metric.items():
        fn = task_obj.aggregation().get(key.split(",")[0])
        if fn is None:
            continue
        out[key] = fn(items, args=args) if "args" in inspect.signature(fn).parameters else fn(items)
    return out


def offline_hub_snapshots(cache: Path, repos: list[str], monkeypatch) -> None:
    """The hub snapshots a task's doc_to_visual fetches with `snapshot_download` (a fixture's `hub_snapshots`,
    e.g. "datasets/owner/name"), present and empty in an offline hub cache, so the call returns their folder."""
    import huggingface_hub.constants as hub  # noqa: PLC0415

    commit = "0" * 40
    for repo in repos:
        kind, name = repo.split("/", 1)
        folder = cache / f"{kind}--{name.replace('/', '--')}"
        (folder / "snapshots" / commit).mkdir(parents=True, exist_ok=True)
        (folder / "refs").mkdir(exist_ok=True)
        (folder / "refs" / "main").write_text(commit)
    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", True)


def lmms_group_numbers(folder: Path, group: str, rows_file: Path, replies: list[str], output_path: Path) -> dict:
    """lmms-eval's group entry (`metric,filter` -> value) from its own `consolidate_group_results`, over its
    members' metrics computed as `lmms_numbers` computes them (same replies for every member)."""
    from lmms_eval.evaluator_utils import consolidate_group_results  # noqa: PLC0415

    task_dict = build_lmms_task_dict(folder, group, rows_file)
    results: dict = defaultdict(dict)

    def members(tree: dict):
        for value in tree.values():
            yield from members(value) if isinstance(value, dict) else [value]

    for task in members(task_dict):
        numbers = lmms_numbers(task, replies, output_path)
        entry = results[task.task_name]
        entry["alias"] = task.task_name
        for key, value in numbers.items():
            metric, _, pipeline = key.partition(",")
            entry[f"{metric},{pipeline or 'none'}"] = value
            entry[f"{metric}_stderr,{pipeline or 'none'}"] = "N/A"
        entry["samples"] = len(list(task.eval_docs))
    results, _, _, _ = consolidate_group_results(results, {}, task_dict)
    (name,) = [g.group_name for g in task_dict]
    return {k: v for k, v in results[name].items() if "," in k and "_stderr" not in k}
