"""Makes the test plugin's tiny dataset: short videos of a coloured square moving left or right."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from harness.frames.writer import write_video

COLORS = {"red": (220, 30, 30), "green": (30, 200, 60), "blue": (40, 60, 230)}
DIRECTIONS = ("left", "right")


def make_dataset(
    root: Path,
    n_test: int = 12,
    n_train: int = 12,
    frames: int = 24,
    size=(64, 48),
    seed: int = 0,
    distinct: bool = False,
) -> Path:
    """Write videos/ and train.jsonl / test.jsonl under root; each video answers two questions.

    Videos of the same colour and direction are identical files unless `distinct` marks each with its
    index (benchmarks that need every request to differ)."""
    rng = np.random.default_rng(seed)
    root = Path(root)
    (root / "videos").mkdir(parents=True, exist_ok=True)
    w, h = size
    for split, n in (("train", n_train), ("test", n_test)):
        rows = []
        for i in range(n):
            color = list(COLORS)[int(rng.integers(len(COLORS)))]
            direction = DIRECTIONS[int(rng.integers(2))]
            name = f"{split}_{i:03d}.mp4"
            video = []
            for t in range(frames):
                img = np.full((h, w, 3), 16, np.uint8)
                x = int(4 + (w - 20) * t / (frames - 1))
                if direction == "left":
                    x = w - 16 - x + 4
                img[16:32, x : x + 12] = COLORS[color]
                img[:, :, 1] = np.maximum(img[:, :, 1], t)  # a frame marker in the green channel floor
                if distinct:
                    img[-8:, :8] = (i * 37 % 256, i * 91 % 256, 255)
                video.append(img)
            write_video(root / "videos" / name, video, fps=8)
            rows.append(
                {
                    "id": f"{split}-{i}-color",
                    "video": f"videos/{name}",
                    "family": "color",
                    "question": "What colour is the square?",
                    "answer": color,
                }
            )
            rows.append(
                {
                    "id": f"{split}-{i}-dir",
                    "video": f"videos/{name}",
                    "family": "direction",
                    "question": "Which way does the square move, left or right?",
                    "answer": direction,
                }
            )
        with open(root / f"{split}.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return root
