"""The model adapter base class: what every model plugin implements."""

from __future__ import annotations

from typing import Any, ClassVar

from harness.requests import Capabilities, Request, Response, TaskInfo


class Model:
    """Base class of model adapters.

    Subclasses set `capabilities`, accept their `--model_args` as keyword arguments and implement
    `generate`. `identity()` goes into every response-cache key: include anything that changes answers.
    """

    name: ClassVar[str] = "model"
    version: ClassVar[str] = "1"
    capabilities: Capabilities = Capabilities()

    def __init__(self, **model_args: Any) -> None:
        self.model_args = dict(model_args)

    def identity(self) -> dict[str, Any]:
        """Model name, version and args: the model part of cache keys and results."""
        return {"name": self.name, "version": self.version, "args": self.model_args}

    def prepare_task(self, info: TaskInfo) -> None:
        """Called once per task before its requests (baselines read the answer space or prior here)."""

    def generate(self, requests: list[Request]) -> list[Response]:
        """Answer a batch of requests, one Response per request, in order."""
        raise NotImplementedError(f"model '{self.name}' does not implement generate()")

    def close(self) -> None:
        """Release resources (servers, GPU memory)."""
