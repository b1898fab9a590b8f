"""The `raster` renderer: a deterministic numpy CPU ray caster with exact instance masks.

Per scene the pixel rays, the ground and the sky are computed once; per frame each object is ray cast
analytically inside its projected box, z-buffered, and shaded (rubber: matte Lambert; metal: darker
diffuse plus Blinn-Phong highlights and a sky reflection). Lamp light scales with the light cycle's
intensity; a small ambient term keeps dark frames readable. Masks come from the same z-buffer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from harness.frames import write_video

from ..camera import euler_xyz
from ..masks import MaskRecorder
from ..state import SceneStates, frame_states
from .shapes import SHAPES

AMBIENT = 0.22
GROUND_ALBEDO = 0.62
SKY = np.array([0.52, 0.52, 0.54])
BOUND_RADIUS = 1.75  # bounding radius of every unit mesh (cube corner sqrt(3))


class RasterRenderer:
    """Renders a scene JSON to RGB frames, instance ids and depth; `render` writes the mp4 and masks."""

    name = "raster"

    def __init__(self, width: int = 480, height: int = 270, **_: object):
        if width % 2 or height % 2 or width < 2 or height < 2:
            raise ValueError(
                f"raster renderer: size {width}x{height} must be even and positive (H.264 yuv420p)"
            )
        self.width, self.height = width, height

    def _setup(self, scene: dict) -> None:
        cam = scene["camera"]
        self.cam_pos = np.asarray(cam["location"], float)
        self.rot = euler_xyz(*cam["rotation_euler"])
        W, H = self.width, self.height
        self.focal = cam["lens_mm"] / cam["sensor_width_mm"] * W
        u = (np.arange(W) + 0.5 - W / 2) / self.focal
        v = -(np.arange(H) + 0.5 - H / 2) / self.focal
        cam_dirs = np.stack(np.broadcast_arrays(u[None, :], v[:, None], -np.ones((H, W))), -1)
        self.rays = cam_dirs @ self.rot.T  # (H, W, 3); t along these rays is the camera z-depth
        power = cam.get("lamp_power", {"key": 1.0, "fill": 0.35, "back": 0.45})
        self.lamps = [(np.asarray(p, float), float(power[k])) for k, p in sorted(cam["lamps"].items())]
        d = self.rays
        down = d[..., 2] < -1e-9
        t = np.where(down, -self.cam_pos[2] / np.where(down, d[..., 2], -1.0), np.inf)
        p = self.cam_pos + d * np.where(down, t, 0.0)[..., None]
        lamp = np.zeros((H, W))
        for pos, pw in self.lamps:
            to = pos - p
            lamp += pw * np.clip(to[..., 2] / np.linalg.norm(to, axis=-1), 0.0, None)
        fade = np.exp(-np.maximum(np.hypot(p[..., 0], p[..., 1]) - 12.0, 0.0) / 25.0)
        base = np.where(down[..., None], GROUND_ALBEDO * fade[..., None] * np.ones(3), SKY)
        self.bg_ambient = base * AMBIENT
        self.bg_lamp = np.where(down[..., None], base * lamp[..., None] * 0.8, SKY * 0.8)
        self.bg_depth = t.astype(np.float32)
        self._no_ids = np.full((H, W), -1, np.int16)
        self._bg_cache: dict[float, np.ndarray] = {}

    def _background(self, intensity: float) -> np.ndarray:
        key = round(intensity, 6)
        img = self._bg_cache.get(key)
        if img is None:
            img = np.clip((self.bg_ambient + intensity * self.bg_lamp) * 255.0, 0, 255).astype(np.uint8)
            self._bg_cache[key] = img
        return img

    def _box(self, center: np.ndarray, radius: float) -> tuple[int, int, int, int] | None:
        corners = center + radius * np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T
        cam = (corners - self.cam_pos) @ self.rot  # camera coords, looking along -z
        if np.any(cam[:, 2] > -1e-3):
            return 0, self.width, 0, self.height
        px = cam[:, 0] / -cam[:, 2] * self.focal + self.width / 2
        py = -cam[:, 1] / -cam[:, 2] * self.focal + self.height / 2
        x0, x1 = int(max(np.floor(px.min()) - 1, 0)), int(min(np.ceil(px.max()) + 1, self.width))
        y0, y1 = int(max(np.floor(py.min()) - 1, 0)), int(min(np.ceil(py.max()) + 1, self.height))
        if x0 >= x1 or y0 >= y1:
            return None
        return x0, x1, y0, y1

    def frames(
        self, scene: dict, states: SceneStates | None = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Yield (rgb uint8 (H, W, 3), ids int16 (H, W) with -1 = background, depth float32 (H, W))."""
        self._setup(scene)
        st = states or frame_states(scene)
        n = len(st.meshes)
        for t in range(st.num_frames):
            inten = float(st.light_intensity[t])
            rgb = self._background(inten).copy()
            ids = self._no_ids.copy()
            depth = self.bg_depth.copy()  # doubles as the z-buffer: the ground behind an object is farther
            for i in range(n):
                self._draw(st, i, t, inten, rgb, ids, depth)
            yield rgb, ids, depth

    def _draw(self, st, i, t, inten, rgb, ids, depth) -> None:
        c, s = st.position[i, t], float(st.scale[i, t])
        box = self._box(c, BOUND_RADIUS * s)
        if box is None:
            return
        x0, x1, y0, y1 = box
        rays = self.rays[y0:y1, x0:x1].reshape(-1, 3)
        a, r = st.angle[i, t], st.rotation[i, t]
        m = euler_xyz(r, 0.0, a)  # tumble about the local x axis, then the placement angle about z
        o_local = m.T @ (self.cam_pos - c) / s
        d_local = rays @ m / s
        tt, n_local = SHAPES[st.meshes[i]](o_local, d_local)
        hit = tt < depth[y0:y1, x0:x1].reshape(-1)
        if not hit.any():
            return
        idx = np.nonzero(hit)[0]
        th = tt[idx]
        normal = n_local[idx] @ m.T
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        point = self.cam_pos + rays[idx] * th[:, None]
        view = self.cam_pos - point
        view /= np.linalg.norm(view, axis=1, keepdims=True)
        metal = st.materials[i] == "Metal"
        diffuse = np.zeros(len(idx))
        spec = np.zeros(len(idx))
        for pos, pw in self.lamps:
            ld = pos - point
            ld /= np.linalg.norm(ld, axis=1, keepdims=True)
            diffuse += pw * np.clip((normal * ld).sum(1), 0.0, None)
            if metal:
                half = ld + view
                half /= np.linalg.norm(half, axis=1, keepdims=True)
                spec += pw * np.clip((normal * half).sum(1), 0.0, None) ** 60
        base = st.color_rgb[i, t]
        if metal:
            sky = np.clip(normal[:, 2], 0.0, 1.0)[:, None] * 0.12
            col = (
                base * (AMBIENT * 0.8 + inten * 0.75 * diffuse)[:, None]
                + inten * 0.9 * spec[:, None]
                + sky * base
            )
        else:
            col = base * (AMBIENT + inten * 1.05 * diffuse)[:, None]
        ys, xs = np.divmod(idx, x1 - x0)
        ys += y0
        xs += x0
        rgb[ys, xs] = np.clip(col * 255.0, 0, 255).astype(np.uint8)
        ids[ys, xs] = i
        depth[ys, xs] = th

    def render(self, scene: dict, video_path: Path, fps: float | None = None) -> dict:
        """Write the scene's H.264 video and return its masks record (exact, from the same z-buffer)."""

        states = frame_states(scene)
        rec = MaskRecorder(len(states.meshes), self.width, self.height, self.name)

        def rgb_frames():
            for rgb, ids, depth in self.frames(scene, states):
                rec.add(ids, depth)
                yield rgb

        write_video(video_path, rgb_frames(), fps or states.fps)
        return rec.record(Path(video_path).stem)
