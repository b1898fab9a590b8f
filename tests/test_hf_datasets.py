"""HF `datasets` for video tasks: local save_to_disk folders and parquet files whose rows hold video paths,
video bytes or `datasets.Video` features; `name`, `data_files`, `revision` reach `load_dataset`. Offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import task_folder
from harness.config.run import RunConfig
from harness.engine.runner import run
from harness.plugins.loading import load_plugins
from harness.results.writer import read_samples

datasets = pytest.importorskip("datasets")


def _rows(colors_root: Path, n: int = 6) -> list[dict]:
    lines = (colors_root / "colors" / "test.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines if x.strip()][:n]


def _task(folder: Path, source: str, extra: str = "") -> Path:
    yaml_text = f"""
        task: hf_video
        version: 1
        dataset: {{source: "{source}"{extra}}}
        media_field: video
        target_field: answer
        prompt: {{text: "{{{{ question }}}}"}}
        frames: {{strategy: uniform, count: 4, max_side: 32}}
        """
    return task_folder(folder, "hfv.yaml", yaml_text)


def _run(tmp_path: Path, folder: Path):
    cfg = RunConfig(
        tasks=["hf_video"],
        model="oracle",
        cache_dir=tmp_path / "cache",
        output_path=tmp_path / "out",
        log_samples=True,
        include_path=[str(folder)],
        progress=False,
    )
    out = run(cfg, load_plugins(include_paths=[folder]))
    return out.results["task_results"]["hf_video"], read_samples(out.samples_paths["hf_video"])


def test_saved_dataset_with_video_bytes(tmp_path, colors_root):
    rows = _rows(colors_root)
    table = {
        "id": [r["id"] for r in rows],
        "question": [r["question"] for r in rows],
        "answer": [r["answer"] for r in rows],
        "video": [
            {"path": Path(r["video"]).name, "bytes": (colors_root / "colors" / r["video"]).read_bytes()}
            for r in rows
        ],
    }
    ds = datasets.Dataset.from_dict(table).cast_column("video", datasets.Video(decode=False))
    datasets.DatasetDict({"test": ds}).save_to_disk(str(tmp_path / "saved"))
    res, recs = _run(tmp_path, _task(tmp_path / "task", str(tmp_path / "saved")))
    assert res["n_samples"] == 6 and res["n_errors"] == 0
    assert res["metrics"]["accuracy"]["value"] == 1.0
    media = recs[0]["media"][0]
    assert Path(media["path"]).is_relative_to(tmp_path / "cache" / "hf_media")
    assert media["indices"]  # really decoded


def test_parquet_with_relative_video_paths_and_raw_bytes(tmp_path, colors_root):
    rows = _rows(colors_root)
    data = tmp_path / "pq"
    (data / "videos").mkdir(parents=True)
    for r in rows:
        (data / r["video"]).write_bytes((colors_root / "colors" / r["video"]).read_bytes())
    datasets.Dataset.from_list(rows).to_parquet(str(data / "test.parquet"))
    res, _ = _run(tmp_path, _task(tmp_path / "task", str(data / "test.parquet")))
    assert res["n_errors"] == 0 and res["metrics"]["accuracy"]["value"] == 1.0

    raw = [dict(r, video=(colors_root / "colors" / r["video"]).read_bytes()) for r in rows]
    datasets.Dataset.from_list(raw).to_parquet(str(tmp_path / "bytes.parquet"))
    res, _ = _run(tmp_path, _task(tmp_path / "task2", str(tmp_path / "bytes.parquet")))
    assert res["n_errors"] == 0 and res["metrics"]["accuracy"]["value"] == 1.0


def test_absolute_paths_in_local_rows_keep_the_root_rule(tmp_path, colors_root):
    rows = _rows(colors_root, 2)
    rows[0]["video"] = str(colors_root / "colors" / rows[0]["video"])
    (tmp_path / "videos").mkdir()
    (tmp_path / rows[1]["video"]).write_bytes((colors_root / "colors" / rows[1]["video"]).read_bytes())
    datasets.Dataset.from_list(rows).to_parquet(str(tmp_path / "abs.parquet"))
    res, recs = _run(tmp_path, _task(tmp_path / "task", str(tmp_path / "abs.parquet")))
    assert res["n_errors"] == 1 and "absolute" in next(r for r in recs if r["error"])["error"]["message"]


def test_json_builder_with_data_files(tmp_path, colors_root):
    """dataset.source `json` + data_files (relative to the YAML): lm-eval's local-data spelling."""
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / "rows.jsonl").write_text(
        "\n".join(
            json.dumps(dict(r, video=str(colors_root / "colors" / r["video"]))) for r in _rows(colors_root)
        )
    )
    _task(folder, "json", ", data_files: {test: rows.jsonl}")
    res, recs = _run(tmp_path, folder)
    # the rows' absolute paths point outside any dataset folder: refused, every one counted
    assert res["n_samples"] == 6 and res["n_errors"] == 6


def test_name_data_files_and_revision_reach_load_dataset(tmp_path, monkeypatch):
    seen = {}

    def fake_load(path, name=None, split=None, **kw):
        seen.update(path=path, name=name, split=split, **kw)
        return datasets.Dataset.from_list([{"id": "a", "question": "q", "answer": "x"}])

    monkeypatch.setattr(datasets, "load_dataset", fake_load)
    folder = _task(tmp_path / "task", "owner/videos", ", name: clips, revision: abc123, split: val")
    from harness.engine.runner import build_task

    task = build_task(load_plugins(include_paths=[folder], use_entry_points=False), "hf_video")
    docs = task.load_docs()
    assert [d["doc_id"] for d in docs] == ["a"]
    assert seen == {"path": "owner/videos", "name": "clips", "split": "val", "revision": "abc123"}


def test_process_docs_and_data_root_with_the_json_builder(tmp_path, colors_root):
    """`json` + data_files for the rows, --data for the videos they name, process_docs on the Dataset."""
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / "hooks.py").write_text(
        "def colors_only(dataset):\n    return dataset.filter(lambda d: d['family'] == 'color')\n"
    )
    rows = colors_root / "colors" / "test.jsonl"
    _task(folder, "json", f", data_files: {{test: {rows}}}, process_docs: hooks.py:colors_only")
    cfg = RunConfig(
        tasks=["hf_video"],
        model="oracle",
        data=colors_root / "colors",
        cache_dir=tmp_path / "cache",
        include_path=[str(folder)],
        progress=False,
    )
    res = run(cfg, load_plugins(include_paths=[folder])).results["task_results"]["hf_video"]
    assert res["n_samples"] == 12 and res["n_errors"] == 0 and res["metrics"]["accuracy"]["value"] == 1.0


def _copy_videos(rows: list[dict], colors_root: Path, folder: Path, sub: str) -> list[dict]:
    """The rows' videos copied into folder/sub/, each row naming its copy relative to folder."""
    (folder / sub).mkdir(parents=True, exist_ok=True)
    out = []
    for r in rows:
        name = Path(r["video"]).name
        (folder / sub / name).write_bytes((colors_root / "colors" / r["video"]).read_bytes())
        out.append(dict(r, video=f"{sub}/{name}"))
    return out


def test_a_folder_of_parquet_with_its_media_beside_it_is_read_as_parquet(tmp_path, colors_root):
    """test.parquet plus media/*.mp4 (and a shard under data/ next to videos whose names look like splits):
    rows keep their fields; `datasets` alone infers a videofolder from the videos and loses them."""
    data = tmp_path / "ds"
    rows = _copy_videos(_rows(colors_root), colors_root, data, "media")
    datasets.Dataset.from_list(rows).to_parquet(str(data / "test.parquet"))
    res, recs = _run(tmp_path, _task(tmp_path / "task", str(data)))
    assert res["n_samples"] == 6 and res["n_errors"] == 0 and res["metrics"]["accuracy"]["value"] == 1.0
    assert recs[0]["media"][0]["indices"]

    sharded = tmp_path / "sharded"
    rows = _copy_videos(_rows(colors_root), colors_root, sharded, "videos")  # videos/test_000.mp4, ...
    (sharded / "data").mkdir()
    datasets.Dataset.from_list(rows).to_parquet(str(sharded / "data" / "test-00000-of-00001.parquet"))
    res, _ = _run(tmp_path, _task(tmp_path / "task2", str(sharded)))
    assert res["n_samples"] == 6 and res["n_errors"] == 0 and res["metrics"]["accuracy"]["value"] == 1.0


def _video_column_with_absolute_paths(rows: list[dict], folder: Path):
    """What `save_to_disk` keeps for a `datasets.Video` column built from files: their absolute paths."""
    table = [dict(r, video=str((folder / r["video"]).resolve())) for r in rows]
    return datasets.Dataset.from_list(table).cast_column("video", datasets.Video(decode=False))


def test_video_column_absolute_paths_inside_the_dataset_folder_are_accepted(tmp_path, colors_root):
    data = tmp_path / "abs"
    rows = _copy_videos(_rows(colors_root), colors_root, data, "videos")
    _video_column_with_absolute_paths(rows, data).to_parquet(str(data / "test.parquet"))
    res, recs = _run(tmp_path, _task(tmp_path / "task", str(data)))
    assert res["n_errors"] == 0 and res["metrics"]["accuracy"]["value"] == 1.0
    assert recs[0]["media"][0]["indices"]  # decoded from the folder's file


def test_video_column_absolute_paths_elsewhere_need_the_opt_in(tmp_path, colors_root, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    rows = _copy_videos(_rows(colors_root), colors_root, elsewhere, "videos")
    data = tmp_path / "outside"
    data.mkdir()
    _video_column_with_absolute_paths(rows, elsewhere).to_parquet(str(data / "test.parquet"))
    res, recs = _run(tmp_path, _task(tmp_path / "task", str(data)))
    assert res["n_errors"] == 6
    message = next(r for r in recs if r["error"])["error"]["message"]
    assert "absolute" in message and "--allow_external_symlinks" in message

    from harness.data.media import ALLOW_SYMLINKS_ENV

    monkeypatch.setenv(ALLOW_SYMLINKS_ENV, "1")
    res, _ = _run(tmp_path, _task(tmp_path / "task2", str(data)))
    assert res["n_errors"] == 0 and res["metrics"]["accuracy"]["value"] == 1.0
