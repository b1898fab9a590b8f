"""`build rvtbench --from-synthetic DIR` reads every CycliST build layout (flat, kind first as the official
release, tier first, DIR/cyclist) and `--num-videos` keeps the first N videos."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from builders.rvtbench.commands import synthetic_sources
from builders.rvtbench.cyclist_layout import scene_paths

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def flat(tmp_path_factory) -> Path:
    """Two rendered CycliST L1 scenes in the flat layout (DIR/scenes, DIR/masks, DIR/videos)."""
    from builders.cyclist.plugin import CyclistBuilder

    (ds,) = CyclistBuilder().demo(tmp_path_factory.mktemp("cyflat"), 0)
    root = tmp_path_factory.mktemp("flat")
    for stem in sorted(
        p.name[: -len("_config.json")] for p in (ds.data_dir / "scenes").glob("*_config.json")
    )[:2]:
        for kind, name in (
            ("scenes", f"{stem}_config.json"),
            ("masks", f"{stem}.json"),
            ("videos", f"{stem}.mp4"),
        ):
            (root / kind).mkdir(exist_ok=True)
            shutil.copy(ds.data_dir / kind / name, root / kind / name)
    return root


def _regroup(flat: Path, root: Path, kind_first: bool) -> Path:
    """The flat build copied into the release's kind-first layout or the tier-first one."""
    for kind in ("scenes", "masks", "videos"):
        for f in (flat / kind).iterdir():
            dest = (
                root / kind / "unicycle" / "test" / f.name
                if kind_first
                else root / "unicycle" / kind / f.name
            )
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, dest)
    return root


def test_every_layout_gives_the_same_scenes(flat, tmp_path):
    flat_ids = [p[0] for p in scene_paths(flat)]
    assert len(flat_ids) == 2
    kind = _regroup(flat, tmp_path / "kind", kind_first=True)
    tier = _regroup(flat, tmp_path / "tier", kind_first=False)
    (tmp_path / "data").mkdir()
    shutil.copytree(kind, tmp_path / "data" / "cyclist")  # ROOT/cyclist/ (the data-root convention)
    assert [p[0] for p in scene_paths(kind)] == [f"unicycle_test_{i}" for i in flat_ids]
    assert [p[0] for p in scene_paths(tier)] == [f"unicycle_{i}" for i in flat_ids]
    assert [p[0] for p in scene_paths(tmp_path / "data")] == [f"unicycle_test_{i}" for i in flat_ids]
    for (_, scene, masks, video), (_, s2, m2, v2) in zip(scene_paths(flat), scene_paths(kind), strict=True):
        assert (scene.name, masks.name, video.name) == (s2.name, m2.name, v2.name)
        assert masks.read_bytes() == m2.read_bytes() and video.read_bytes() == v2.read_bytes()


def test_the_twin_is_the_same_from_the_release_layout(flat, tmp_path):
    kind = _regroup(flat, tmp_path / "kind", kind_first=True)
    (vid, _, make), (vid2, _, make2) = synthetic_sources(flat, 4, 1)[0], synthetic_sources(kind, 4, 1)[0]
    assert vid2 == f"unicycle_test_{vid}"
    assert json.dumps(make("v.mp4"), sort_keys=True) == json.dumps(make2("v.mp4"), sort_keys=True)


def test_num_videos_keeps_the_first_and_no_scene_is_named(flat, tmp_path):
    assert [s[0] for s in synthetic_sources(flat, 4, 1)] == [scene_paths(flat)[0][0]]
    (tmp_path / "scenes").mkdir()
    with pytest.raises(
        ValueError, match=r"no rendered CycliST scenes; looked for scenes/\*\*/\*_config.json"
    ):
        scene_paths(tmp_path)
