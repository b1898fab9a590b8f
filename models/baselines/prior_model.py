"""`prior`: answers the most frequent training-split answer of the question's family, blind to the video."""

from __future__ import annotations

from typing import Any, ClassVar

from harness.api import Capabilities, Model, Request, Response, TaskInfo, UnsuitableModelError


class PriorModel(Model):
    """A language-prior baseline; the table comes from the task's training split only.

    The table is read in `prepare_task`, before any request: a task without training rows is refused up
    front (UnsuitableModelError, exit 2) instead of answering every sample with an empty string."""

    name = "prior"
    uses_hints = True
    accepted_args: ClassVar[tuple[str, ...]] = ()
    capabilities = Capabilities(video=True, multi_video=True, images=True, max_frames=1)

    def __init__(self, **model_args: Any):
        super().__init__(**model_args)
        self._tables: dict[str, dict[str, str]] = {}

    def prepare_task(self, info: TaskInfo) -> None:
        if info.prior is None:
            raise UnsuitableModelError(
                f"model 'prior': task '{info.name}' offers no training-split prior; use --model random for the "
                "chance level",
                info.name,
            )
        table = info.prior()
        if not table:  # the task's prior_table refuses empty splits itself; a plugin's may not
            raise UnsuitableModelError(
                f"model 'prior': task '{info.name}' gave an empty training-split prior; use --model random for "
                "the chance level",
                info.name,
            )
        self._tables[info.name] = table

    def generate(self, requests: list[Request]) -> list[Response]:
        out = []
        for r in requests:
            table = self._tables[r.task]
            key = r.hints.get("prior_key", "")
            answer = table.get(key)
            if answer is None:  # unseen family: the overall most common answer
                answer = sorted(table.values())[0]
            out.append(Response(text=answer))
        return out
