"""The model adapter base class: what every model plugin implements.

How a model reports results: `generate(requests)` returns one entry per request, in order, each a
`Response` or an exception (that one request failed; the others' answers are kept). A model that can only
raise may raise `PartialGeneration` carrying the same per-request list (None: never sent). Anything else
raised fails every request of the call. `generate_iter` yields `(index, result)` pairs as answers finish,
so the evaluator commits each to the response cache on arrival; the default wraps `generate`.
`max_in_flight` is how many requests the backend works on at once: the evaluator keeps that many in flight
across concurrent `generate_iter` calls (served adapters set it to their `concurrency`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Optional, Union

from harness.contract.messages import Capabilities, Request, Response, TaskInfo
from harness.errors import HarnessError, ModelArgsError, UnsuitableModelError

Result = Union[Response, BaseException]


class PartialGeneration(RuntimeError):
    """A generate call that answered only some requests.

    `results[i]` is the Response to request i, the exception it failed with, or None when it was never
    sent (e.g. a spending budget ran out). Finished answers are kept and cached; the rest become counted
    `generation` errors carrying this exception's message."""

    def __init__(self, message: str, results: Sequence[Optional[Result]]) -> None:
        super().__init__(message)
        self.results = list(results)


class Model:
    """Base class of model adapters.

    Subclasses set `capabilities`, accept their `--model_args` as keyword arguments (declared in
    `accepted_args`) and implement `generate`. `identity()` goes into every response-cache key: include
    anything that changes answers. A model that cannot answer every kind of task names the kinds it can in
    `answer_types`; one that needs something of a task's data checks it in `prepare_task`.
    """

    name: ClassVar[str] = "model"
    version: ClassVar[str] = "1"
    #: the name results and reports show for this model (the `OUT/<name>/` folder, the results' model name);
    #: None: the name the run asked for (`--model`)
    display_name: Optional[str] = None
    #: the lmms-eval model this adapter corresponds to (e.g. "llava_vid", "qwen2_5_vl"): lmms-eval task folders
    #: pick their per-model prompts (`lmms_eval_specific_kwargs`) by it, as lmms-eval does for `--model NAME`
    lmms_eval_model: ClassVar[Optional[str]] = None
    capabilities: Capabilities = Capabilities()
    #: True for baselines that answer from the task's side (random, prior, oracle): each request then
    #: carries `hints` (the oracle answer, the prior key, a per-sample seed); False: `Request.hints` is empty
    uses_hints: ClassVar[bool] = False
    #: requests the backend can work on at once; > 1 lets the evaluator call generate_iter from that many
    #: threads (each call thread-safe), whatever --batch_size is
    max_in_flight: int = 1
    #: the `--model_args` keys this adapter accepts: any other key is refused before the model loads
    #: (ModelArgsError, exit 2, listing these). None: not declared (the adapter's signature decides)
    accepted_args: ClassVar[Optional[tuple[str, ...]]] = None
    #: the task answer types (`answer_type` in a task's YAML: text, clip_choice, masks, boxes, or a
    #: plugin's own) this model can answer; a task of another type is refused up front (exit 2). None: any
    answer_types: ClassVar[Optional[frozenset[str]]] = None

    def __init__(self, **model_args: Any) -> None:
        check_model_args(self.name, model_args, self.accepted_args)
        self.model_args = dict(model_args)

    def identity(self) -> dict[str, Any]:
        """Model name, version and args: the model part of cache keys and results."""
        return {"name": self.name, "version": self.version, "args": self.model_args}

    def prepare_task(self, info: TaskInfo) -> None:
        """Called once per task before any request (baselines read the answer space or prior here); raise
        UnsuitableModelError(message, task) when the model cannot work on the task's data (exit 2)."""

    def generate(self, requests: list[Request]) -> list[Result]:
        """Answer a batch of requests: one Response (or the exception that request failed with) per request, in order."""
        raise NotImplementedError(f"model '{self.name}' does not implement generate()")

    def generate_iter(self, requests: list[Request]) -> Iterator[tuple[int, Result]]:
        """(index, Response or exception) for every request, in the order answers finish."""
        yield from enumerate(per_request_results(self, requests))

    def close(self) -> None:
        """Release resources (servers, GPU memory)."""


def check_model_args(model: str, args: Mapping[str, Any], accepted: Optional[Sequence[str]]) -> None:
    """ModelArgsError naming every key of `args` that `accepted` lacks, and the accepted keys (None: no check)."""
    if accepted is None:
        return
    unknown = sorted(set(args) - set(accepted))
    if unknown:
        keys = ", ".join(accepted) if accepted else "none (this model takes no arguments)"
        raise ModelArgsError(f"model '{model}': unknown model_args {', '.join(unknown)}; accepted: {keys}")


def check_answer_type(
    model: str, answer_types: Optional[frozenset[str]], task: str, answer_type: str, fitting: Sequence[str] = ()
) -> None:
    """UnsuitableModelError when a model that declares `answer_types` cannot answer a task of `answer_type`;
    `fitting` names a few registered tasks it can answer, for the message."""
    if answer_types is None or answer_type in answer_types:
        return
    kinds = " or ".join(sorted(answer_types))
    hint = f" (e.g. {', '.join(fitting)})" if fitting else ""
    raise UnsuitableModelError(
        f"model '{model}' answers {kinds} tasks only, and task '{task}' is a {answer_type} task (answer_type in "
        f"its YAML), so every answer would score 0; run '{model}' on {kinds} tasks{hint}, or task '{task}' "
        "with another model",
        task,
    )


def per_request_results(model: Model, requests: list[Request]) -> list[Result]:
    """`model.generate(requests)` as one result per request: a failed call fails every request it did not
    answer, a PartialGeneration keeps the answers it carries, a short list is an error for the missing."""
    try:
        out = list(model.generate(requests))
    except PartialGeneration as exc:
        out = [r if r is not None else exc for r in exc.results]
    except HarnessError:  # the harness's own failures (e.g. a configuration mistake) stop the run
        raise
    except Exception as exc:  # a failed call: every request of it failed with this exception
        return [exc] * len(requests)
    if len(out) != len(requests):
        err = RuntimeError(f"model '{model.name}' returned {len(out)} responses for {len(requests)} requests")
        return [err] * len(requests)
    return [r if isinstance(r, (Response, BaseException)) else _not_a_response(model, r) for r in out]


def _not_a_response(model: Model, value: Any) -> BaseException:
    return TypeError(f"model '{model.name}' returned {type(value).__name__}, not a Response")
