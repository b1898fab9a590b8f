"""Camera and lamps (CLEVR's rig pulled back 1.5x for the larger CycliST area), jitter, release directions."""

from __future__ import annotations

import numpy as np

CLEVR_CAMERA = (7.358891, -6.925791, 4.958309)
CAMERA_ROTATION_DEG = (63.559, 0.6197, 46.692)  # Blender XYZ Euler of CLEVR's camera
PULL_BACK = 1.5
LENS_MM, SENSOR_MM = 35.0, 32.0
LAMPS = {
    "key": (6.4467, -2.9052, 4.2584),
    "fill": (-4.6711, -4.0136, 3.0113),
    "back": (-1.1685, 2.6460, 5.8166),
}
LAMP_POWER = {"key": 1.0, "fill": 0.35, "back": 0.45}


def euler_xyz(rx: float, ry: float, rz: float) -> np.ndarray:
    """Blender's XYZ Euler rotation matrix (R = Rz @ Ry @ Rx), radians."""
    cx, sx, cy, sy, cz, sz = np.cos(rx), np.sin(rx), np.cos(ry), np.sin(ry), np.cos(rz), np.sin(rz)
    rot_x = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    rot_y = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rot_z = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rot_z @ rot_y @ rot_x


def sample_rig(rng: np.random.Generator, camera_jitter: float, light_jitter: dict[str, float]) -> dict:
    """Camera and lamp positions with the release's jitter 2 j (u - 0.5) per axis (CLEVR's Sec. 2.4 rig)."""

    def jitter(j: float) -> np.ndarray:
        return 2.0 * j * (rng.random(3) - 0.5)

    cam = np.array(CLEVR_CAMERA) * PULL_BACK + jitter(camera_jitter)
    lamps = {k: (np.array(v) * PULL_BACK + jitter(light_jitter[k])) for k, v in LAMPS.items()}
    return {
        "location": [round(float(v), 6) for v in cam],
        "rotation_euler": [round(float(np.radians(v)), 6) for v in CAMERA_ROTATION_DEG],
        "lens_mm": LENS_MM,
        "sensor_width_mm": SENSOR_MM,
        "lamps": {k: [round(float(x), 6) for x in v] for k, v in lamps.items()},
        "lamp_power": dict(LAMP_POWER),
    }


def directions(camera: dict) -> dict[str, list[float]]:
    """The release's `directions`: camera axes with one world axis projected out (behind drops x, left
    drops y, up keeps z), normalised; front/right/below are the negatives."""
    rot = euler_xyz(*camera["rotation_euler"])
    behind = rot @ np.array([0.0, 0.0, -1.0])
    left = rot @ np.array([-1.0, 0.0, 0.0])
    up = rot @ np.array([0.0, 1.0, 0.0])
    behind = behind - np.array([behind[0], 0.0, 0.0])
    left = left - np.array([0.0, left[1], 0.0])
    up = np.array([0.0, 0.0, up[2]])
    behind, left, up = (v / np.linalg.norm(v) for v in (behind, left, up))
    out = {"behind": behind, "front": -behind, "left": left, "right": -left, "above": up, "below": -up}
    return {k: [round(float(x), 6) + 0.0 for x in v] for k, v in out.items()}
