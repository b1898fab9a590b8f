"""The `blender` renderer: the paper's Cycles rendering through bpy (the `blender` extra, bpy==4.2.*).

The scene is built from primitives matching the raster meshes (so the raster z-buffer gives its instance
masks), with the CLEVR look: rubber = rough dielectric, metal = glossy metallic. Every frame's transform,
colour and light energy is key framed from `frame_states`; frames are rendered to PNG and encoded with
the same H.264 writer as the raster renderer.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from harness.frames import write_video

from ..camera import euler_xyz
from ..masks import MaskRecorder
from ..state import frame_states
from .raster import RasterRenderer

INSTALL_HINT = (
    "the blender renderer needs Blender's Python module: install the extra with "
    "`pip install 'video-harness[blender]'` (or `pip install \"bpy==4.2.*\"`, Python 3.11)"
)
LAMP_WATTS = 1000.0


def _import_bpy():
    try:
        import bpy
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return bpy


class BlenderRenderer:
    """Cycles renderer; `render(scene, video_path)` writes the mp4 and returns the masks record."""

    name = "blender"

    def __init__(
        self, width: int = 1920, height: int = 1080, samples: int = 16, device: str = "CPU", **_: object
    ):
        if width % 2 or height % 2:
            raise ValueError(f"blender renderer: size {width}x{height} must be even (H.264 yuv420p)")
        self.width, self.height, self.samples, self.device = width, height, samples, device
        self.bpy = _import_bpy()

    def _material(self, name: str, metal: bool):
        bpy = self.bpy
        mat = bpy.data.materials.new(name)
        mat.use_nodes = True
        bsdf = mat.node_tree.nodes["Principled BSDF"]
        bsdf.inputs["Metallic"].default_value = 1.0 if metal else 0.0
        bsdf.inputs["Roughness"].default_value = 0.25 if metal else 0.85
        return mat, bsdf

    def _add_mesh(self, mesh: str):
        ops = self.bpy.ops.mesh
        if mesh == "Sphere":
            ops.primitive_uv_sphere_add(radius=1.0, segments=48, ring_count=24)
        elif mesh == "Cube":
            ops.primitive_cube_add(size=2.0)
        elif mesh == "Cylinder":
            ops.primitive_cylinder_add(radius=1.0, depth=2.0, vertices=48)
        else:
            ops.primitive_cone_add(radius1=1.0, radius2=0.0, depth=2.0, vertices=48)
        obj = self.bpy.context.active_object
        if mesh != "Cube":
            self.bpy.ops.object.shade_smooth()
        return obj

    def _setup(self, scene: dict, num_frames: int, fps: float) -> list:
        bpy = self.bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        sc = bpy.context.scene
        sc.render.engine = "CYCLES"
        sc.cycles.device = self.device
        sc.cycles.samples = self.samples
        sc.cycles.use_denoising = False
        sc.render.resolution_x, sc.render.resolution_y = self.width, self.height
        sc.render.resolution_percentage = 100
        sc.render.fps = int(round(fps))
        sc.frame_start, sc.frame_end = 1, num_frames
        sc.render.image_settings.file_format = "PNG"
        world = bpy.data.worlds.new("World")
        world.use_nodes = True
        world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.25
        sc.world = world
        cam = scene["camera"]
        cam_data = bpy.data.cameras.new("Camera")
        cam_data.lens, cam_data.sensor_width, cam_data.sensor_fit = (
            cam["lens_mm"],
            cam["sensor_width_mm"],
            "HORIZONTAL",
        )
        cam_obj = bpy.data.objects.new("Camera", cam_data)
        cam_obj.location = cam["location"]
        cam_obj.rotation_euler = cam["rotation_euler"]
        sc.collection.objects.link(cam_obj)
        sc.camera = cam_obj
        bpy.ops.mesh.primitive_plane_add(size=80.0)
        ground_mat, ground_bsdf = self._material("ground", metal=False)
        ground_bsdf.inputs["Base Color"].default_value = (0.45, 0.45, 0.45, 1.0)
        bpy.context.active_object.data.materials.append(ground_mat)
        lamps = []
        for key, pos in sorted(cam["lamps"].items()):
            data = bpy.data.lights.new(f"Lamp_{key}", type="POINT")
            data.shadow_soft_size = 1.0
            lamp = bpy.data.objects.new(f"Lamp_{key}", data)
            lamp.location = pos
            sc.collection.objects.link(lamp)
            lamps.append((data, LAMP_WATTS * float(cam.get("lamp_power", {}).get(key, 1.0))))
        return lamps

    def render(self, scene: dict, video_path: Path, fps: float | None = None) -> dict:
        """Render every frame with Cycles, encode to H.264, and return the (raster-geometry) masks."""

        bpy = self.bpy
        st = frame_states(scene)
        fps = fps or st.fps
        lamps = self._setup(scene, st.num_frames, fps)
        handles = []
        for i, mesh in enumerate(st.meshes):
            obj = self._add_mesh(mesh)
            mat, bsdf = self._material(f"obj_{i}", st.materials[i] == "Metal")
            obj.data.materials.append(mat)
            handles.append((obj, bsdf))
        for t in range(st.num_frames):
            frame = t + 1
            for data, watts in lamps:
                data.energy = watts * float(st.light_intensity[t])
                data.keyframe_insert("energy", frame=frame)
            for i, (obj, bsdf) in enumerate(handles):
                obj.location = [float(v) for v in st.position[i, t]]
                m = euler_xyz(float(st.rotation[i, t]), 0.0, float(st.angle[i, t]))
                obj.rotation_euler = _matrix_to_euler_xyz(m)
                obj.scale = [float(st.scale[i, t])] * 3
                for path in ("location", "rotation_euler", "scale"):
                    obj.keyframe_insert(path, frame=frame)
                col = bsdf.inputs["Base Color"]
                col.default_value = [*_srgb_to_linear(st.color_rgb[i, t]), 1.0]
                col.keyframe_insert("default_value", frame=frame)
        raster = RasterRenderer(self.width, self.height)
        rec = MaskRecorder(len(st.meshes), self.width, self.height, "blender (raster geometry)")
        with tempfile.TemporaryDirectory(prefix="cyclist_blender_") as tmp:
            frames = []
            sc = bpy.context.scene
            for t in range(st.num_frames):
                sc.frame_set(t + 1)
                sc.render.filepath = str(Path(tmp) / f"f{t:05d}.png")
                bpy.ops.render.render(write_still=True)
                frames.append(sc.render.filepath)
            for _, ids, depth in raster.frames(scene, st):
                rec.add(ids, depth)
            import cv2

            write_video(video_path, (cv2.imread(p, cv2.IMREAD_COLOR)[:, :, ::-1] for p in frames), fps)
        return rec.record(Path(video_path).stem)


def _matrix_to_euler_xyz(m: np.ndarray) -> list[float]:
    """Blender XYZ Euler angles of a rotation matrix (inverse of `euler_xyz`)."""
    ry = float(np.arcsin(np.clip(-m[2, 0], -1.0, 1.0)))
    if abs(m[2, 0]) < 1 - 1e-9:
        rx = float(np.arctan2(m[2, 1], m[2, 2]))
        rz = float(np.arctan2(m[1, 0], m[0, 0]))
    else:
        rx, rz = float(np.arctan2(-m[1, 2], m[1, 1])), 0.0
    return [rx, ry, rz]


def _srgb_to_linear(rgb: np.ndarray) -> list[float]:
    c = np.asarray(rgb, float)
    return [float(v) for v in np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)]
