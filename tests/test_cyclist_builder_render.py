"""CycliST renderers: raster masks agree with pixels; blender renders a frame when bpy is installed."""

from __future__ import annotations

import numpy as np
import pytest

from harness_builders.cyclist.config import Composition, SceneSettings, plan_scene
from harness_builders.cyclist.constants import COLORS_255
from harness_builders.cyclist.masks import MaskRecorder, decode
from harness_builders.cyclist.render.raster import RasterRenderer
from harness_builders.cyclist.scene import generate_scene
from harness_builders.cyclist.state import frame_states

SET = SceneSettings(number_of_frames=16, fps=16)


def _scene(tier="L2", index=1):
    return generate_scene(SET, plan_scene(Composition(tier), "test", index), 3).scene


def test_raster_masks_agree_with_pixels():
    scene = _scene()
    renderer = RasterRenderer(160, 90)
    st = frame_states(scene)
    palette = {k: np.array(v, float) / 255 for k, v in COLORS_255.items()}
    for t, (rgb, ids, depth) in enumerate(renderer.frames(scene, st)):
        background = renderer._background(float(st.light_intensity[t]))
        assert np.array_equal(rgb[ids < 0], background[ids < 0])  # background outside every mask
        for i in range(len(st.meshes)):
            inside = ids == i
            if inside.sum() < 20 or st.color[i, t] == "gray" or st.materials[i] == "Metal":
                continue
            mean = rgb[inside].mean(0) / 255
            cos = {
                k: mean @ v / np.linalg.norm(mean) / np.linalg.norm(v)
                for k, v in palette.items()
                if k != "gray"
            }
            assert max(cos, key=cos.get) == st.color[i, t]  # the object's colour inside its mask
        rec = MaskRecorder(len(st.meshes), 160, 90, "raster")
        rec.add(ids, depth)
        for i in range(len(st.meshes)):
            assert np.array_equal(decode(rec.objects[i]["segmentations"][0]), ids == i)
        if t > 3:
            break


def test_raster_is_deterministic_and_light_cycle_visible():
    scene = generate_scene(SET, plan_scene(Composition("L5"), "test", 0), 0).scene
    renderer = RasterRenderer(96, 54)
    a = [f[0] for f in renderer.frames(scene)]
    b = [f[0] for f in renderer.frames(scene)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=False))
    inten = frame_states(scene).light_intensity
    bright, dark = int(np.argmax(inten)), int(np.argmin(inten))
    assert a[bright].mean() > a[dark].mean() + 10


def test_raster_writes_video_and_masks(tmp_path):
    import av

    scene = _scene("L1", 0)
    record = RasterRenderer(64, 36).render(scene, tmp_path / "v.mp4")
    with av.open(str(tmp_path / "v.mp4")) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    assert len(frames) == 16 and frames[0].shape == (36, 64, 3)
    assert record["num_frames"] == 16 and len(record["objects"]) == len(scene["objects"])


def test_blender_renders_a_frame(tmp_path):
    pytest.importorskip("bpy")
    from harness_builders.cyclist.render.blender import BlenderRenderer

    settings = SceneSettings(number_of_frames=4, fps=4)
    scene = generate_scene(settings, plan_scene(Composition("L1"), "test", 0), 0).scene
    BlenderRenderer(64, 36, samples=2).render(scene, tmp_path / "b.mp4")
    import av

    with av.open(str(tmp_path / "b.mp4")) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    assert len(frames) == 4 and frames[0].shape == (36, 64, 3) and frames[0].std() > 1
