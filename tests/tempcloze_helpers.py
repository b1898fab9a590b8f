"""Shared by the TempCloze task tests: build a small set with the project's builder, run tasks, read samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.config.run import RunConfig
from harness.engine.runner import run


def build_tempcloze(root: Path, count: int, virtual: bool) -> Path:
    """`count` synthetic videos built into root/tempcloze (all items in the Hard subset); returns root."""
    from harness_builders.tempcloze.config import BuildConfig
    from harness_builders.tempcloze.pipeline import build_dataset
    from harness_builders.tempcloze.synthetic import make_source_folder

    data = root / "tempcloze"
    make_source_folder(data / "sources", count=count, seconds=6.0, fps=10.0, seed=1)
    build_dataset(data / "sources", data, BuildConfig(seed=0, virtual=virtual), progress=False)
    stems = sorted(p.name for p in (data / "choices").iterdir())
    (data / "subset_ids.json").write_text(json.dumps(stems))
    return root


def run_tasks(tmp_path: Path, data: Path, tasks: list[str], model: str, state=None, **kw):
    """Evaluate `model` on `tasks` with samples logged under tmp_path."""
    cfg = RunConfig(tasks=tasks, model=model, data=data, output_path=tmp_path / "out", log_samples=True,
                    cache_dir=tmp_path / "cache", **kw)  # fmt: skip
    return run(cfg, state)


def samples(out, task: str) -> list[dict]:
    """The samples file of `task` from a run's outcome."""
    return [json.loads(x) for x in out.samples_paths[task].read_text().splitlines()]


def root_fixtures(name: str, virtual_items: int, file_items: int):
    """A test module's fixtures `virtual_root` and `files_root`: builder-made items, as virtual clips (segments
    over sources kept inside the dataset root) and in the release's file layout, all in Hard."""

    @pytest.fixture(scope="module")
    def virtual_root(tmp_path_factory) -> Path:
        return build_tempcloze(tmp_path_factory.mktemp(f"{name}_virtual"), virtual_items, virtual=True)

    @pytest.fixture(scope="module")
    def files_root(tmp_path_factory) -> Path:
        return build_tempcloze(tmp_path_factory.mktemp(f"{name}_files"), file_items, virtual=False)

    return virtual_root, files_root
