"""Models kept loaded across the runs of one process: inside `shared_models()`, a run that asks for a model
already loaded there (same name, same arguments) gets that instance, so a grid worker running one model's
cells reads the checkpoint once. Outside it (a plain run) every run builds and closes its own model."""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Optional

from harness.contract.model import Model

_POOL: contextvars.ContextVar[Optional[dict[str, tuple[Model, Callable[[], None]]]]] = contextvars.ContextVar(
    "harness_model_pool", default=None
)


def _no_close() -> None:
    """A pooled model's close() while the pool holds it: the pool closes it when it ends."""


@contextmanager
def shared_models() -> Iterator[None]:
    """Runs inside share their models; each is closed once, when the block ends."""
    pool: dict[str, tuple[Model, Callable[[], None]]] = {}
    token = _POOL.set(pool)
    try:
        yield
    finally:
        _POOL.reset(token)
        for _, close in pool.values():
            close()


def pooled(name: str, args: dict[str, Any], build: Callable[[], Model]) -> Model:
    """The model `name` with `args`: the shared one inside `shared_models()`, else a new one from `build`."""
    pool = _POOL.get()
    if pool is None:
        return build()
    key = json.dumps([name, args], sort_keys=True, default=str)
    if key not in pool:
        model = build()
        pool[key] = (model, model.close)
        model.close = _no_close  # the run's own close() leaves it loaded for the next run
    return pool[key][0]
