"""The run's model and judge: found by name, checked against the tasks, then built with their arguments.

Every way a model can fail to start is one message and an exit code, never a traceback: a missing extra is
exit 3 with the install command, as is a checkpoint that cannot be read or fetched; an unknown argument (`Model.accepted_args`), a bad value, or a model that
cannot answer a task's type (`Model.answer_types` against the task's `answer_type`) is exit 2, and the type
check runs before the model is built, so a large checkpoint is never read for a run that cannot work.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from harness.config.schema import TaskConfig
from harness.contract.hooks import check_model_class
from harness.contract.model import Model, check_answer_type
from harness.engine.judging import RULE_JUDGE
from harness.engine.model_pool import pooled
from harness.errors import ConfigError, ModelLoadError, UnknownNameError
from harness.plugins.extras import missing_dependency
from harness.plugins.loading import PluginState
from harness.plugins.registry import Entry

log = logging.getLogger("harness.engine.model_loading")
#: how many registered tasks a refusal names as examples of what the model can answer
_EXAMPLES = 4


def _factory(entry: Entry, what: str) -> Callable[..., Model]:
    """The entry's factory, imported; a module no installed extra provides becomes the install command."""
    try:
        return entry.load()
    except ModuleNotFoundError as exc:
        raise missing_dependency(what, exc) from exc


def _build(factory: Callable[..., Model], what: str, flag: str, args: dict[str, Any]) -> Model:
    """factory(**args); a missing module (imported when the model is built) or a signature mismatch is named."""
    try:
        return factory(**args)
    except ModuleNotFoundError as exc:  # e.g. torch without the hf extra, openai without its extra
        raise missing_dependency(what, exc) from exc
    except ConfigError as exc:  # e.g. ModelArgsError: say which flag to fix when it is not --model_args
        if flag == "--model_args":
            raise
        raise ConfigError(f"{exc} (the --judge model; its arguments come from {flag})") from exc
    except TypeError as exc:
        raise ConfigError(f"{what}: bad {flag} {args}: {exc}") from exc
    except OSError as exc:  # a checkpoint that cannot be read or fetched: exit 3, one line
        raise ModelLoadError(f"{what}: cannot load: {' '.join(str(exc).split())}") from exc
    except ValueError as exc:  # an adapter refusing its setup (a value, the checkpoint's kind): one message
        log.debug("%s refused its setup", what, exc_info=True)
        text = str(exc)
        raise ConfigError(text if text.startswith(what) else f"{what}: {text}") from exc


def fitting_tasks(state: PluginState, answer_types: frozenset[str]) -> list[str]:
    """A few registered tasks whose answer_type is one of `answer_types` (for a refusal's message)."""
    default = TaskConfig.model_fields["answer_type"].default
    names = []
    for name in state.registry.names("task"):
        entry = state.registry.get("task", name)
        raw = entry.extra.get("config") or {}
        if not entry.extra.get("group") and raw.get("answer_type", default) in answer_types:
            names.append(name)
    return sorted(names)[:_EXAMPLES]


def check_fit(state: PluginState, name: str, factory: Any, tasks: Sequence[Any]) -> None:
    """UnsuitableModelError (exit 2) when the model declares answer types and a task is of another type."""
    answer_types = factory.answer_types if isinstance(factory, type) else None  # a class declares it (Model)
    if answer_types is None:
        return
    for task in tasks:
        answer_type = task.config.answer_type
        if answer_type not in answer_types:
            check_answer_type(name, answer_types, task.name, answer_type, fitting_tasks(state, answer_types))


def load_model(state: PluginState, name: str, args: dict[str, Any], tasks: Sequence[Any] = ()) -> Model:
    """The registered model `name` built with its --model_args, after checking it can answer `tasks`."""
    factory = _factory(state.registry.get("model", name), f"model '{name}'")
    if isinstance(factory, type):  # its methods hold to their contracts (harness.contract.hooks.ModelMethods)
        check_model_class(factory)
    check_fit(state, name, factory, tasks)
    return pooled(name, args, lambda: _build(factory, f"model '{name}'", "--model_args", args))


def judge_entry(state: PluginState, name: str) -> Entry:
    """The `--judge` entry: a registered judge (`register_judges`) first, else any registered model."""
    if state.registry.has("judge", name):
        return state.registry.get("judge", name)
    if state.registry.has("model", name):
        return state.registry.get("model", name)
    known = {RULE_JUDGE} | set(state.registry.names("judge")) | set(state.registry.names("model"))
    raise UnknownNameError("judge", name, known)


def load_judge(state: PluginState, name: str, args: dict[str, Any]) -> Model:
    """The `--judge` model (see `judge_entry`), built with --judge_args."""
    factory = _factory(judge_entry(state, name), f"judge '{name}'")
    return _build(factory, f"judge '{name}'", "--judge_args", args)
