"""The release's fixed vocabularies (meshes, materials, CLEVR colours, sizes) and scene defaults."""

from __future__ import annotations

MESHES = ("Cone", "Cube", "Cylinder", "Sphere")
MATERIALS = ("Metal", "Rubber")
# The eight CLEVR colours as the release's assets/colors.json lists them (0-255).
COLORS_255 = {
    "gray": (87, 87, 87),
    "red": (173, 35, 35),
    "blue": (42, 75, 215),
    "green": (29, 105, 20),
    "brown": (129, 74, 25),
    "purple": (129, 38, 192),
    "cyan": (41, 208, 208),
    "yellow": (255, 238, 51),
}
SIZES = {"small": 0.25, "large": 0.5}
CYCLE_TYPES = ("linear", "orbit", "resize", "recolor", "rotate")
MOTION_CYCLES = ("linear", "orbit")  # both change the position: never together on one object
RELATIONS = ("behind", "front", "left", "right")


def release_colors() -> dict[str, list[float]]:
    """The `colors` field of a release scene: RGBA in [0, 1] per colour name."""
    return {name: [round(v / 255.0, 6) for v in rgb] + [1.0] for name, rgb in COLORS_255.items()}
