"""Where RVTBench data sits under --data ROOT (the data-root convention): a build in ROOT or ROOT/rvtbench, the
release as the hub gives it (ROOT/rvtbench/...), a root holding one folder per benchmark, the release's folder
itself, archives in the release unpacked into the cache, and one clear error when nothing or two things match."""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from harness.api import DataError, is_unpacked
from harness_tasks.rvtbench.loader import FIELD_ALIASES, OPTIONAL_FIELDS, load_samples
from harness_tasks.rvtbench.release import find_layout

KEEP = set(FIELD_ALIASES) | set(OPTIONAL_FIELDS)  # each field by its first name


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    from harness_builders.rvtbench.commands import RvtbenchBuilder

    (ds,) = RvtbenchBuilder().demo(tmp_path_factory.mktemp("rvtlayout"), 0)
    return ds.data_dir


def _records(build: Path) -> list[dict]:
    """The build's rows as release records (only the fields a release record may carry)."""
    rows = [json.loads(line) for line in (build / "test.jsonl").read_text().splitlines() if line.strip()]
    return [{k: v for k, v in r.items() if k in KEEP} for r in rows]


def _oracle(task: str, data: Path, tmp_path: Path) -> dict:
    from harness.config.run import RunConfig
    from harness.engine.runner import run

    cfg = RunConfig(tasks=[task], model="oracle", data=str(data), limit=3, cache_dir=str(tmp_path / "c"))
    return run(cfg).results["task_results"][task]


def test_a_build_is_read_in_its_folder_and_in_a_root_holding_it(build, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(build, data / "rvtbench")
    direct, nested = load_samples(build, "test", {}), load_samples(data, "test", {})
    assert [r["id"] for r in direct] == [r["id"] for r in nested] and len(direct) > 10
    assert all(
        n["video"] == f"rvtbench/{d['video']}" and (data / n["video"]).is_file()
        for d, n in zip(direct, nested, strict=True)
    )
    res = _oracle("rvtbench_seg", data, tmp_path)  # --data data: the videos resolve through the core
    assert res["n_errors"] == 0 and res["metrics"]["J&F"]["value"] == 1.0


@pytest.mark.parametrize("shape", ["release_root", "benchmark_root", "release_folder"])
def test_the_release_as_the_hub_gives_it(shape, build, tmp_path):
    base = tmp_path / "data" if shape != "release_folder" else tmp_path / "download" / "rvtbench"
    release = {"release_root": base, "benchmark_root": base / "rvtbench", "release_folder": None}[shape]
    folder = release / "rvtbench" if release is not None else base
    shutil.copytree(build / "videos", folder / "videos")
    (folder / "annotations").mkdir(parents=True)
    (folder / "annotations" / "samples.json").write_text(json.dumps(_records(build)))
    layout = find_layout(base)
    assert layout.kind == "release" and layout.path == folder
    rows = load_samples(base, "test", {"task_type": "segmentation"})
    assert rows and all((base / r["video"]).is_file() for r in rows)  # relative to ROOT, as the core resolves
    res = _oracle("rvtbench_seg", base, tmp_path)
    assert res["n_errors"] == 0 and res["metrics"]["J&F"]["value"] == 1.0


def test_release_archives_are_unpacked_into_the_cache_and_their_videos_play(build, tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "data" / "rvtbench"
    folder.mkdir(parents=True)
    with zipfile.ZipFile(
        folder / "videos.zip", "w"
    ) as zf:  # members at its top: they stand in rvtbench/videos/
        for v in sorted((build / "videos").iterdir()):
            zf.write(v, v.name)
    (tmp_path / "samples.json").write_text(json.dumps(_records(build)))
    with tarfile.open(folder / "annotations.tar.gz", "w:gz") as tar:  # the records inside an archive too
        tar.add(tmp_path / "samples.json", "annotations/samples.json")
    rows = load_samples(tmp_path / "data", "test", {"task_type": "segmentation"})
    assert rows and all(os.path.isabs(r["video"]) and is_unpacked(r["video"]) for r in rows)
    assert all(Path(r["video"]).is_file() for r in rows)
    res = _oracle("rvtbench_seg", tmp_path / "data", tmp_path)  # the core accepts the unpacked files
    assert res["n_errors"] == 0 and res["metrics"]["J&F"]["value"] == 1.0
    assert not any(p.suffix == ".mp4" for p in folder.rglob("*"))  # nothing unpacked into the release


def test_an_unsafe_archive_stops_the_load_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "data" / "rvtbench"
    folder.mkdir(parents=True)
    (tmp_path / "x").write_text("x")
    with tarfile.open(folder / "videos.tar", "w") as tar:
        tar.add(tmp_path / "x", "../../escape")
    with pytest.raises(DataError, match=r"videos.tar: member '../../escape' climbs out"):
        load_samples(tmp_path / "data", "test", {})
    assert not (tmp_path / "escape").exists()


def test_no_or_two_layouts_name_root_what_was_looked_for_and_the_fix(build, tmp_path):
    (tmp_path / "empty" / "cyclist").mkdir(parents=True)
    (tmp_path / "empty" / "cyclist" / "q.json").write_text("[]")  # another benchmark's files are not read
    with pytest.raises(DataError) as err:
        load_samples(tmp_path / "empty", "test", {})
    text = str(err.value)
    assert (
        "found nothing" in text and "empty/manifest.json" in text and "empty/rvtbench/manifest.json" in text
    )
    assert "build rvtbench --from-synthetic" in text and "hf download yiqingshen/rvtbench" in text
    both = tmp_path / "both"
    shutil.copytree(build, both)
    shutil.copytree(build, both / "rvtbench")
    with pytest.raises(
        DataError, match=r"found a build in .*both and a build in .*both/rvtbench.*point --data"
    ):
        load_samples(both, "test", {})


def test_the_download_patterns_cover_what_the_loader_reads():
    """dataset.hub.allow_patterns (what the fetch without --data downloads) hold every file below rvtbench/."""
    from fnmatch import fnmatch

    import yaml

    base = Path(__file__).resolve().parents[1] / "tasks" / "rvtbench" / "configs" / "_base.yaml"
    patterns = yaml.safe_load(base.read_text())["dataset"]["hub"]["allow_patterns"]
    for rel in ("rvtbench/samples.json", "rvtbench/a/b/c.mp4", "rvtbench/JPEGImages/480p/bear/00000.jpg"):
        assert any(fnmatch(rel, p) for p in patterns)
    assert any(fnmatch("rvtbench/videos.zip", p) for p in patterns)
    assert not any(fnmatch("README.md", p) for p in patterns)
