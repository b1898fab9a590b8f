"""CycliST builder: `--workers N` (a process pool) builds exactly what one process builds."""

from __future__ import annotations

import argparse
import json

from harness_builders.cyclist.commands import CyclistBuilder
from harness_metrics import decode_rle


def _build(out, workers):
    builder = CyclistBuilder()
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    flags = ["--tier", "L3", "--num-scenes", "6", "--frames", "16", "--fps", "8", "--size", "64x36"]
    args = parser.parse_args([*flags, "--workers", str(workers), "--out", str(out), "--no_progress"])
    assert builder.run(args) == 0
    return {
        kind: {p.name: p.read_bytes() for p in sorted((out / kind / "bicycle" / "test").iterdir())}
        for kind in ("scenes", "masks", "videos")
    }


def test_two_workers_build_byte_identical_scenes_and_masks(tmp_path):
    one = _build(tmp_path / "one", 1)
    two = _build(tmp_path / "two", 2)
    assert len(one["scenes"]) == 6 and len(one["masks"]) == 6
    assert list(one["scenes"]) == list(two["scenes"]) and list(one["masks"]) == list(two["masks"])
    for name, data in one["scenes"].items():
        assert data == two["scenes"][name], f"scene {name} differs between --workers 1 and 2"
    for name, data in one["masks"].items():
        assert data == two["masks"][name], f"masks {name} differ between --workers 1 and 2"
    for data in one["masks"].values():  # the compared masks are real: objects covering pixels
        masks = json.loads(data)
        stacks = [decode_rle(obj["segmentations"]) for obj in masks["objects"]]
        assert stacks and all(m.shape == (16, 36, 64) for m in stacks)
        assert any(m.any() for m in stacks), masks["scene"]
    manifests = [
        json.loads((tmp_path / n / "build" / "bicycle" / "test" / "manifest.json").read_text())
        for n in ("one", "two")
    ]
    assert manifests[0] == manifests[1]
    # the encoder is deterministic too (libx264 without --non-deterministic), so the videos match as well
    assert one["videos"] == two["videos"] and len(one["videos"]) == 6
