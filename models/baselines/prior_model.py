"""`prior`: answers the most frequent training-split answer of the question's family, blind to the video."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.api import Capabilities, Model, Request, Response, TaskInfo


class PriorModel(Model):
    """A language-prior baseline; the table comes from the task's training split only."""

    name = "prior"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=1)

    def __init__(self, **model_args: Any):
        super().__init__(**model_args)
        self._tables: dict[str, dict[str, str]] = {}
        self._loaders: dict[str, Callable[[], dict[str, str]]] = {}

    def prepare_task(self, info: TaskInfo) -> None:
        if info.prior is not None:
            self._loaders[info.name] = info.prior

    def _table(self, task: str) -> dict[str, str]:
        if task not in self._tables:
            loader = self._loaders.get(task)
            self._tables[task] = loader() if loader else {}
        return self._tables[task]

    def generate(self, requests: list[Request]) -> list[Response]:
        out = []
        for r in requests:
            table = self._table(r.task)
            key = r.hints.get("prior_key", "")
            answer = table.get(key)
            if answer is None and table:  # unseen family: the overall most common answer
                answer = sorted(table.values())[0]
            out.append(Response(text=answer or ""))
        return out
