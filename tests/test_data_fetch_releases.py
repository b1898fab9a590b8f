"""The built-in tasks' hub declarations (dataset.hub in their YAMLs) against the releases' published layouts,
served by the stand-in hub: each task fetches exactly the files of its tier and split, and the fetched snapshot
runs end to end where the task's loader reads that layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hub_helpers import hub_env, online  # noqa: F401 - `online` is a fixture
from servers.hf_hub import StandInHub, folder_files

from conftest import run_harness
from harness.data.fetch import fetch_release
from harness.engine.runner import build_task
from harness.plugins.loading import load_plugins

TIERS = ("unicycle", "bicycle")
SPLITS = ("test", "train")


@pytest.fixture(scope="module")
def state():
    return load_plugins([])


@pytest.fixture
def hub():
    with StandInHub() as server:
        yield server


def cyclist_release(video: bytes) -> dict[str, bytes]:
    """The CycliST release, kind first (scenes/<tier>/<split>/, videos/..., questions/.../questions_<template>.json),
    for two tiers and two splits: one scene, one video and two questions each."""
    files = {"README.md": b"# CycliST\n"}
    for tier in TIERS:
        for split in SPLITS:
            name = f"CycliST_{split}_000000"
            scene = {"split": split, "scene_index": 0, "video_file": f"{name}.mp4", "fps": 32, "objects": [
                {"mesh": "cube", "material": "rubber", "size": "large", "color": "red", "cycles": {}}]}  # fmt: skip
            questions = [
                {"split": split, "video_filename": f"{name}.mp4", "video_index": 0, "question": q, "program": [],
                 "answer": a, "template_filename": t, "question_family_index": 0, "question_index": i}
                for i, (q, a, t) in enumerate([
                    ("Is the cube always red?", "yes", "universal_descriptive_attributes.json"),
                    ("How many times does the cube orbit?", "0", "counting_occurence.json"),
                ])
            ]  # fmt: skip
            files[f"scenes/{tier}/{split}/{name}.json"] = json.dumps(scene).encode()
            files[f"videos/{tier}/{split}/{name}.mp4"] = video
            files[f"questions/{tier}/{split}/questions_counting.json"] = json.dumps(
                {"info": {"split": split}, "questions": questions}
            ).encode()
    return files


@pytest.fixture(scope="module")
def tempcloze_release(tmp_path_factory) -> dict[str, bytes]:
    """Two builder-made TempCloze items as the release publishes them: choices/<stem>/ clips (no clips.json),
    subset_ids.json and mixed_ids.json at the root, plus the newer TempCloze/ folder and files no task reads."""
    from harness_builders.tempcloze.config import BuildConfig
    from harness_builders.tempcloze.pipeline import build_dataset
    from harness_builders.tempcloze.synthetic import make_source_folder

    data = tmp_path_factory.mktemp("tempcloze")
    make_source_folder(data / "sources", count=2, seconds=6.0, fps=10.0, seed=1)
    build_dataset(data / "sources", data, BuildConfig(seed=0, virtual=False), progress=False)
    files = {
        p: b
        for p, b in folder_files(data).items()
        if p.startswith("choices/") and not p.endswith("clips.json")
    }
    stems = sorted({p.split("/")[1] for p in files})
    files["subset_ids.json"] = json.dumps(stems).encode()
    files["mixed_ids.json"] = (data / "mixed_ids.json").read_bytes()
    files["TempCloze/mixed/mixed_ids.json"] = files["mixed_ids.json"]
    files["TempCloze/mixed/eval_mixed.py"] = b"print('the official evaluation script')\n"
    files["README.md"] = b"# TempCloze\n"
    return files


def rvtbench_release(video: bytes) -> dict[str, bytes]:
    """The RVTBench release's folder rvtbench/ (the loader's layout; the real schema is unverified)."""
    fixture = Path(__file__).parents[1] / "tasks/rvtbench/fixtures/release/rvtbench/samples.json"
    return {
        "rvtbench/samples.json": fixture.read_bytes(),
        "rvtbench/videos/demo.mp4": video,
        "README.md": b"# RVTBench\n",
    }


def _video(colors_root: Path) -> bytes:
    return (colors_root / "colors" / "videos" / "test_000.mp4").read_bytes()


def _fetched(state, hub: StandInHub, tmp_path: Path, task_name: str, split: str = "test") -> set[str]:
    task = build_task(state, task_name)
    ds = task.config.dataset
    got = fetch_release(
        ds.hub, task.name, split, ds.data_key, dict(ds.options), progress=False, endpoint=hub.endpoint,
        cache=tmp_path / "hf",
    )  # fmt: skip
    return {p.relative_to(got.path).as_posix() for p in got.path.rglob("*") if p.is_file()}


@pytest.mark.usefixtures("online")
def test_cyclist_tasks_fetch_their_tier_and_split_only(state, hub, tmp_path, colors_root):
    files = cyclist_release(_video(colors_root))
    hub.add_commit("AIML-TUDA/CycliST", files)
    vqa = _fetched(state, hub, tmp_path, "cyclist_l1")  # the VQA loader reads questions and videos, not scenes
    assert vqa == {
        p for p in files if p.split("/")[1:3] == ["unicycle", "test"] and not p.startswith("scenes/")
    }
    caption = _fetched(state, hub, tmp_path / "b", "cyclist_caption_l3", split="train")
    assert caption == {
        p for p in files if p.split("/")[1:3] == ["bicycle", "train"] and not p.startswith("questions/")
    }


@pytest.mark.usefixtures("online")
def test_tempcloze_fetches_clips_and_subset_files_not_code(state, hub, tmp_path, tempcloze_release):
    hub.add_commit("CedPei/TempCloze", tempcloze_release)
    got = _fetched(state, hub, tmp_path, "tempcloze_hard")
    assert got == set(tempcloze_release) - {"README.md", "TempCloze/mixed/eval_mixed.py"}


@pytest.mark.usefixtures("online")
def test_rvtbench_fetches_its_folder(state, hub, tmp_path, colors_root):
    files = rvtbench_release(_video(colors_root))
    hub.add_commit("yiqingshen/rvtbench", files)
    assert _fetched(state, hub, tmp_path, "rvtbench_vqa") == set(files) - {"README.md"}


def _oracle_results(tmp_path: Path, hub: StandInHub, task: str) -> dict:
    """The results file of `--tasks TASK --model oracle` with no --data (the release fetched from `hub`)."""
    env = hub_env(tmp_path, hub.endpoint)
    args = ["--tasks", task, "--model", "oracle", "--output_path", str(tmp_path / "out"), "--no_progress"]
    proc = run_harness(args, env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    [path] = (tmp_path / "out" / "oracle").glob("results_*.json")
    return json.loads(path.read_text())


def test_tempcloze_hard_runs_from_the_fetched_release(hub, tmp_path, tempcloze_release):
    commit = hub.add_commit("CedPei/TempCloze", tempcloze_release)
    results = _oracle_results(tmp_path, hub, "tempcloze_hard")
    res = results["task_results"]["tempcloze_hard"]
    assert res["n_samples"] == 3 * 2 and res["metrics"]["accuracy"]["value"] == 1.0
    assert results["config"]["tasks"]["tempcloze_hard"]["data_source"]["commit"] == commit


def test_rvtbench_vqa_runs_from_the_fetched_release(hub, tmp_path, colors_root):
    commit = hub.add_commit("yiqingshen/rvtbench", rvtbench_release(_video(colors_root)))
    results = _oracle_results(tmp_path, hub, "rvtbench_vqa")
    assert results["task_results"]["rvtbench_vqa"]["n_errors"] == 0
    assert results["config"]["tasks"]["rvtbench_vqa"]["data_source"]["commit"] == commit


def test_cyclist_l1_runs_from_the_fetched_release(hub, tmp_path, colors_root):
    commit = hub.add_commit("AIML-TUDA/CycliST", cyclist_release(_video(colors_root)))
    results = _oracle_results(tmp_path, hub, "cyclist_l1")
    res = results["task_results"]["cyclist_l1"]
    assert res["n_samples"] == 2 and res["metrics"]["accuracy"]["value"] == 1.0
    assert results["config"]["tasks"]["cyclist_l1"]["data_source"]["commit"] == commit
