"""`build rvtbench --from-synthetic DIR` reads a CycliST build in the official kind-first layout, in an earlier
build's flat tier folder and in DIR/cyclist (the data-root convention), and `--num-videos` keeps the first N."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness_builders.rvtbench.synthetic import scene_paths, synthetic_sources

KINDS = ("scenes", "masks", "videos")


@pytest.fixture(scope="module")
def kind_first(tmp_path_factory) -> Path:
    """Two rendered CycliST L1 scenes in the release's kind-first layout (scenes/unicycle/test/, ...)."""
    from harness_builders.cyclist.commands import CyclistBuilder

    (ds,) = CyclistBuilder().demo(tmp_path_factory.mktemp("cydemo"), 0)
    root = tmp_path_factory.mktemp("kind")
    (stem_a, _, _, _), (stem_b, _, _, _) = scene_paths(ds.data_dir)[:2]
    for stem in (stem_a, stem_b):
        for kind, name in zip(KINDS, (f"{stem}_config.json", f"{stem}.json", f"{stem}.mp4"), strict=True):
            src = next((ds.data_dir / kind).rglob(name))
            dest = root / kind / "unicycle" / "test" / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest)
    return root


def _flat(kind_first: Path, root: Path) -> Path:
    """The same scenes in an earlier build's flat tier folder (DIR/scenes, DIR/masks, DIR/videos)."""
    for kind in KINDS:
        (root / kind).mkdir(parents=True)
        for f in (kind_first / kind / "unicycle" / "test").iterdir():
            shutil.copy(f, root / kind / f.name)
    return root


def test_every_layout_gives_the_same_scenes(kind_first, tmp_path):
    ids = [p[0] for p in scene_paths(kind_first)]
    assert len(ids) == 2 and all(i.startswith("test_") for i in ids)
    flat = _flat(kind_first, tmp_path / "flat")
    shutil.copytree(kind_first, tmp_path / "data" / "cyclist")  # ROOT/cyclist/, a root of benchmarks
    assert [p[0] for p in scene_paths(flat)] == ids == [p[0] for p in scene_paths(tmp_path / "data")]
    for (_, scene, masks, video), (_, s2, m2, v2) in zip(
        scene_paths(flat), scene_paths(kind_first), strict=True
    ):
        assert (scene.name, masks.name, video.name) == (s2.name, m2.name, v2.name)
        assert masks.read_bytes() == m2.read_bytes() and video.read_bytes() == v2.read_bytes()


def test_the_twin_is_the_same_from_either_layout(kind_first, tmp_path):
    flat = _flat(kind_first, tmp_path / "flat")
    (vid, _, make), (vid2, _, make2) = (
        synthetic_sources(flat, 4, 1)[0],
        synthetic_sources(kind_first, 4, 1)[0],
    )
    assert vid == vid2
    assert json.dumps(make("v.mp4"), sort_keys=True) == json.dumps(make2("v.mp4"), sort_keys=True)


def test_num_videos_keeps_the_first_and_no_scene_is_named(kind_first, tmp_path):
    assert [s[0] for s in synthetic_sources(kind_first, 4, 1)] == [scene_paths(kind_first)[0][0]]
    assert len(synthetic_sources(kind_first, 4)) == 2
    (tmp_path / "scenes").mkdir()
    with pytest.raises(ValueError, match=r"no rendered CycliST scenes"):
        scene_paths(tmp_path)
