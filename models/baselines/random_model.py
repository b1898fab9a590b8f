"""`random`: picks uniformly from the task's answer space, seeded per (run seed, task, doc).

A task may declare one answer space, or one per value of its prior key (e.g. per question family, so a
yes/no question draws yes or no): then the request's `prior_key` hint selects the space.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from harness.api import Capabilities, Model, ModelArgsError, Request, Response, TaskInfo, UnsuitableModelError


class RandomModel(Model):
    """Chance level: a uniform draw from the answer space the task declares."""

    name = "random"
    uses_hints = True
    accepted_args: ClassVar[tuple[str, ...]] = ("seed", "max_frames")
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=1)

    def __init__(self, seed: int = 0, max_frames: int | str = 1, **model_args: Any):
        """`max_frames` (default 1) is how many frames per clip the harness decodes for it: raise it to
        make the baseline cost what a real model's input costs (the side-by-side bench uses 16)."""
        super().__init__(seed=seed, **({"max_frames": max_frames} if str(max_frames) != "1" else {}), **model_args)
        self.seed = seed
        try:
            frames = int(max_frames)
        except ValueError:
            raise ModelArgsError(f"model 'random': max_frames={max_frames!r} is not a whole number") from None
        if frames < 1:
            raise ModelArgsError(f"model 'random': max_frames={frames} must be at least 1")
        self.capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=frames)
        self._spaces: dict[str, list[str] | dict[str, list[str]]] = {}

    def prepare_task(self, info: TaskInfo) -> None:
        if not info.answer_space:
            raise UnsuitableModelError(
                f"model 'random': task '{info.name}' has no answer space to draw from (no `answer_space` in its "
                "YAML or hook, and its rows carry no targets); give the task an answer_space, or use another model",
                info.name,
            )
        space = info.answer_space
        self._spaces[info.name] = (
            {str(k): list(v) for k, v in space.items()} if isinstance(space, dict) else list(space)
        )

    def generate(self, requests: list[Request]) -> list[Response]:
        out = []
        for r in requests:
            rng = random.Random(r.hints.get("seed", 0) ^ self.seed)
            space = self._spaces[r.task]
            if isinstance(space, dict):
                key = r.hints.get("prior_key", "")
                space = space.get(key) or sorted({a for values in space.values() for a in values})
            out.append(Response(text=rng.choice(space)))
        return out
