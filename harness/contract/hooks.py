"""The contract of every task hook and every model method, in one file: argument and return types.

A task's YAML names its hooks by reference (`hooks.parse: hooks.py:parse`, `dataset.loader: ...`); each one is a
plain function fitting the Protocol of its field below. The contracts are checked in two places:

- when the task is built (`harness.data.task.Task`), before any data or model is loaded: a reference that does not
  resolve, or a function whose parameters cannot take the arguments the harness passes, or whose declared return
  type is not the contract's, is a HookContractError (exit 2) naming the task, the field and the reference;
- where a hook's value is used (`check_return`): a value of the wrong type is a HookContractError naming the hook,
  a counted per-sample error where the hook runs per sample, never a silent wrong answer.

A task in lm-eval / lmms-eval's format names its functions by `!function` (`doc_to_text: !function utils.fn`):
each has the Protocol lmms-eval 0.7.3 calls it with (`LMMS_HOOKS`), checked the same two ways. `contract_of`
maps every field a task config can hold a reference in to its contract.

Model adapters implement `harness.api.Model`; `ModelMethods` below states each method's contract and
`check_model_class` holds an adapter class to it.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Protocol, TypedDict, Union, runtime_checkable

from harness.contract.messages import Message, Request, Response, TaskInfo
from harness.errors import HookContractError

#: the `harness.api.Task` a hook receives (named, not imported: the task module imports this one)
Task = Any
#: the LLM judge client `harness judge-calibrate` passes (harness.engine.judging.JudgeClient: `.ask(prompt, ...)`)
JudgeClient = Any


# -- the values hooks exchange ------------------------------------------------------------------------------
@dataclass
class Parsed:
    """A parsed model answer (what `parse` returns): the value, whether it is a valid answer, and why not."""

    answer: Any = None
    valid: bool = True
    note: Optional[str] = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {"answer": self.answer, "valid": self.valid}
        if self.note:
            out["note"] = self.note
        if self.extra:
            out["extra"] = self.extra
        return out


@dataclass
class DroppedRow:
    """What a loader yields in place of a row it cannot use: counted in the results with its reason.

    `reason` is a short tag (e.g. `bad_split`, `missing_field`), `detail` names the row and the problem.
    """

    reason: str
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {"reason": self.reason, "detail": self.detail}


class OracleReply(TypedDict, total=False):
    """An oracle answer with structured output: the reply's text and its `Response.structured` value."""

    text: str
    structured: Any


#: what `oracle_answer` returns: the reply text, or the text plus structured output
OracleAnswerValue = Union[str, OracleReply]
#: what `answer_space` returns: one list of answers, or one per value of the task's prior key
AnswerSpaceValue = Union[list[str], dict[str, list[str]]]
#: what `score` returns: metric -> a number, None ("not applicable"), or a corpus metric's item of any JSON kind
Scores = Mapping[str, Any]


# -- task hooks: one Protocol per field of a task's YAML -------------------------------------------------------
class Loader(Protocol):
    """`dataset.loader`: every row of `split` under the dataset folder `root` (None: the task has no folder, e.g.
    no --data and no `dataset.source`: refuse with harness.api.DataError); a row it cannot use is a DroppedRow."""

    def __call__(self, root: Optional[Path], split: str, options: dict[str, Any]) -> Iterable[Union[dict, DroppedRow]]: ...


class ProcessDocs(Protocol):
    """`dataset.process_docs`: the `datasets.Dataset` before its rows are read -> the dataset to read."""

    def __call__(self, dataset: Any) -> Any: ...


class PatternsHook(Protocol):
    """`dataset.hub.patterns_hook`: the hub files a task downloads for `split` (globs)."""

    def __call__(self, split: str, options: dict[str, Any]) -> list[str]: ...


class BuildRequest(Protocol):
    """`hooks.build_request`: the chat messages of one row; video parts hold a VideoRef and no frames."""

    def __call__(self, doc: dict[str, Any], task: Task) -> list[Message]: ...


class Target(Protocol):
    """`hooks.target`: the row's ground truth, any JSON value (default: the row's `target_field`)."""

    def __call__(self, doc: dict[str, Any]) -> Any: ...


class OracleAnswer(Protocol):
    """`hooks.oracle_answer`: the reply a perfect model gives (the `oracle` answers it; `prior` counts its text)."""

    def __call__(self, doc: dict[str, Any], target: Any) -> OracleAnswerValue: ...


class AnswerSpace(Protocol):
    """`hooks.answer_space`: the `random` baseline's answers, one list or one per prior-key value."""

    def __call__(self, docs: list[dict[str, Any]]) -> AnswerSpaceValue: ...


class Parse(Protocol):
    """`hooks.parse`: a model's reply -> Parsed. It receives the Response (`.text`, `.structured`), not a string;
    an unparsable reply is `Parsed(valid=False, note=why)`, never an exception. A third parameter, `judge`,
    receives the LLM judge client (None without --judge)."""

    def __call__(self, response: Response, doc: dict[str, Any]) -> Parsed: ...


class Score(Protocol):
    """`hooks.score`: per-sample scores of a parsed answer against the target; None is "not applicable"."""

    def __call__(self, parsed: Parsed, target: Any, doc: dict[str, Any]) -> Scores: ...


class PrepareScoring(Protocol):
    """`hooks.prepare_scoring`: every answer of the task (samples-file records) before any is scored."""

    def __call__(self, records: list[dict[str, Any]]) -> None: ...


class Aggregate(Protocol):
    """`hooks.aggregate`: extra tables for results.json from the task's per-sample records."""

    def __call__(self, records: list[dict[str, Any]], task: Task) -> dict[str, Any]: ...


class GroupAggregate(Protocol):
    """A group's `hooks.aggregate`: tables across its members from {task: results entry}."""

    def __call__(self, task_results: dict[str, dict[str, Any]]) -> dict[str, Any]: ...


class GroupMetricAggregation(Protocol):
    """A group's `aggregate_metric_list[].aggregation: !function`: one number from its members' values of the
    metric and their sample counts (lm-eval's `consolidate_group_results`)."""

    def __call__(self, values: list[float], sizes: list[int], weight_by_size: bool) -> float: ...


class Aggregation(Protocol):
    """A metric's `aggregation: file.py:function`: one number from the metric's per-sample items (an lmms-eval
    aggregation may take a second parameter, `args`: lmms-eval's command-line namespace)."""

    def __call__(self, items: list[Any]) -> float: ...


class Calibration(Protocol):
    """`metadata.calibration`: a judge's agreement with the task's calibration sets (`harness judge-calibrate`);
    `judge` is the LLM judge client, None for the task's rule judge; `case` one case, None for all. The report is
    printed and written as JSON."""

    def __call__(self, judge: Optional[JudgeClient], case: Optional[str]) -> dict[str, Any]: ...


# -- lmms-eval's task functions: `!function` fields of a task in lm-eval / lmms-eval's format ---------------------
# Called as lmms-eval 0.7.3 calls them (lmms_eval/api/task.py). `lmms_eval_specific_kwargs` is passed when the
# task's YAML has that table (doc_to_visual: only when it declares exactly two parameters; doc_to_messages: as
# a keyword, when it names the parameter, takes **kwargs or declares two), the target kwargs when it has
# `model_specific_target_kwargs`.
class DocToVisual(Protocol):
    """`doc_to_visual`: the doc's visuals: video or image paths, PIL images, or video dicts (`video_start`, ...)."""

    def __call__(self, doc: dict[str, Any], lmms_eval_specific_kwargs: Optional[dict] = None) -> list[Any]: ...


class DocToText(Protocol):
    """`doc_to_text`: the prompt text of the doc."""

    def __call__(self, doc: dict[str, Any], lmms_eval_specific_kwargs: Optional[dict] = None) -> str: ...


class DocToTarget(Protocol):
    """`doc_to_target`: the doc's ground truth (lmms-eval: an int, a string or a list; any JSON value here)."""

    def __call__(self, doc: dict[str, Any], model_specific_target_kwargs: Any = None) -> Any: ...


class DocToChoice(Protocol):
    """`doc_to_choice`: the doc's answer choices (a doc_to_target int indexes them)."""

    def __call__(self, doc: dict[str, Any]) -> list[Any]: ...


class DocToMessages(Protocol):
    """`doc_to_messages`: the chat turns, `[{"role", "content": [{"type": text|image|video, ...}]}]`."""

    def __call__(self, doc: dict[str, Any], lmms_eval_specific_kwargs: Optional[dict] = None) -> list[dict]: ...


class ProcessResults(Protocol):
    """`process_results`: a doc's per-sample metric values from `results`, the stripped replies (one here)."""

    def __call__(self, doc: dict[str, Any], results: list[str]) -> dict[str, Any]: ...


class FilterClass(Protocol):
    """A `filter_list` step's `function: !function utils.MyFilter` (or `class: utils.py:MyFilter`): lm-eval's
    Filter class, built with the step's other keys as keyword arguments; `apply` maps each instance's replies
    (one instance here: `[[reply]]`, `[doc]`) to its filtered value."""

    def apply(self, resps: list[list[Any]], docs: list[dict[str, Any]]) -> list[Any]: ...


# -- the defaults: what a task without the hook gets ------------------------------------------------------
def _normalise(text: Any) -> str:
    return re.sub(r"[^\w\s]", "", str(text)).strip().lower()


def with_judge(parse: Callable) -> Callable:
    """A parse hook as the engine calls it, `parse(response, doc, judge)`: the documented two-parameter form
    `parse(response, doc)` (no judge) is wrapped, decided once when the task loads its hook."""
    if len(inspect.signature(parse).parameters) >= 3:
        return parse

    @functools.wraps(parse)
    def parse_without_judge(response: Response, doc: dict, judge: Any = None) -> Any:
        return parse(response, doc)

    return parse_without_judge


def default_parse(response: Response, doc: dict) -> Parsed:
    """The whole reply, stripped; an empty reply is invalid."""
    text = (response.text or "").strip()
    return Parsed(answer=text, valid=bool(text), note=None if text else "empty reply")


def default_score(parsed: Parsed, target: Any, doc: dict) -> dict[str, Optional[float]]:
    """Accuracy by case- and punctuation-insensitive exact match."""
    return {"accuracy": float(parsed.valid and _normalise(parsed.answer) == _normalise(target))}


@dataclass(frozen=True)
class HookContract:
    """One hook field: its Protocol, how many positional arguments the harness passes (`arities`: the forms it
    accepts), and the types its declared return annotation may name (None: anything). `method`: the Protocol's
    method the harness calls (`apply` of a filter class: the reference names a class, checked on that method)."""

    field: str
    protocol: type
    arities: tuple[int, ...]
    returns: Optional[tuple[type, ...]] = None
    method: str = "__call__"


#: every task hook field -> its contract (the house test holds the built-in tasks to these)
HOOKS: dict[str, HookContract] = {
    c.field: c
    for c in (
        HookContract("dataset.loader", Loader, (3,), (Iterable,)),
        HookContract("dataset.process_docs", ProcessDocs, (1,)),
        HookContract("dataset.hub.patterns_hook", PatternsHook, (2,), (list, Sequence)),
        HookContract("hooks.build_request", BuildRequest, (2,), (list, Sequence)),
        HookContract("hooks.target", Target, (1,)),
        HookContract("hooks.oracle_answer", OracleAnswer, (2,), (str, dict, Mapping)),
        HookContract("hooks.answer_space", AnswerSpace, (1,), (list, dict, Sequence, Mapping)),
        HookContract("hooks.parse", Parse, (2, 3), (Parsed,)),
        HookContract("hooks.score", Score, (3,), (dict, Mapping)),
        HookContract("hooks.prepare_scoring", PrepareScoring, (1,), (type(None),)),
        HookContract("hooks.aggregate", Aggregate, (2,), (dict, Mapping)),
        HookContract("metadata.calibration", Calibration, (2,), (dict, Mapping)),
    )
}
#: a group's aggregate hook and its aggregate_metric_list functions (group YAMLs); a metric's file aggregation
GROUP_AGGREGATE = HookContract("hooks.aggregate", GroupAggregate, (1,), (dict, Mapping))
GROUP_METRIC_AGGREGATION = HookContract("aggregate_metric_list[].aggregation", GroupMetricAggregation, (3,))
AGGREGATION = HookContract("aggregation", Aggregation, (1, 2))
#: lm-eval / lmms-eval `!function` fields, by the key of lmms-eval's YAML (process_docs: `dataset.process_docs`,
#: a metric_list aggregation: AGGREGATION)
LMMS_HOOKS: dict[str, HookContract] = {
    c.field: c
    for c in (
        HookContract("doc_to_visual", DocToVisual, (1, 2), (list, Sequence, type(None))),
        HookContract("doc_to_text", DocToText, (1, 2), (str,)),
        HookContract("doc_to_target", DocToTarget, (1, 2)),
        HookContract("doc_to_choice", DocToChoice, (1,), (list, Sequence)),
        HookContract("doc_to_messages", DocToMessages, (1, 2), (list, Sequence)),
        HookContract("process_results", ProcessResults, (2,), (dict, Mapping)),
        HookContract("filter", FilterClass, (2,), (list, Sequence, Iterable), method="apply"),
    )
}
_FILTER_STEP = re.compile(r"filter_list\[\d+\]\.filter\[\d+\]\.(function|class)")


def contract_of(field_name: str, group: bool = False) -> Optional[HookContract]:
    """The contract of a reference at `field_name`, a field path of a task config (`group`: of a group config) as
    `harness.data.hook_refs` lists them (`hooks.parse`, `metrics[0].aggregation`, `lmms.doc_to_text`,
    `filter_list[0].filter[1].function`; `aggregate_metric_list[0].aggregation`), or None for a field that holds
    no reference."""
    if group:
        metric_list = field_name.startswith("aggregate_metric_list[") and field_name.endswith("].aggregation")
        return GROUP_METRIC_AGGREGATION if metric_list else {"hooks.aggregate": GROUP_AGGREGATE}.get(field_name)
    if field_name.startswith("metrics[") and field_name.endswith("].aggregation"):
        return AGGREGATION
    if field_name.startswith("lmms."):
        return LMMS_HOOKS.get(field_name[len("lmms.") :])
    if _FILTER_STEP.fullmatch(field_name):
        return LMMS_HOOKS["filter"]
    return HOOKS.get(field_name)


def _accepts(sig: inspect.Signature, n: int) -> bool:
    try:
        sig.bind(*range(n))
    except TypeError:
        return False
    return True


def _declared_return(fn: Callable) -> Any:
    """The function's resolved return annotation, or inspect.Signature.empty when absent or unresolvable."""
    try:
        return typing.get_type_hints(fn).get("return", inspect.Signature.empty)
    except Exception:  # noqa: BLE001 - an annotation naming what cannot be imported here is not checked
        return inspect.Signature.empty


def _fits(annotation: Any, allowed: tuple[type, ...]) -> bool:
    """Whether a return annotation names only types of `allowed` (unions: every member; Any: yes)."""
    if annotation is Any or annotation is inspect.Signature.empty:
        return True
    if annotation is None:
        annotation = type(None)
    origin = typing.get_origin(annotation)
    if origin is Union or (origin is not None and origin.__name__ == "UnionType"):
        return all(_fits(a, allowed) for a in typing.get_args(annotation))
    base = origin or annotation
    if not isinstance(base, type):
        return True  # a TypeVar, a string left unresolved, ...: not checked
    if issubclass(base, (str, bytes)) and not any(issubclass(base, a) for a in allowed if a not in (Sequence, Iterable)):
        return False  # a string is a Sequence, never the list a contract asks for
    return any(issubclass(base, a) for a in allowed)


def check_hook(fn: Any, contract: HookContract, where: str, ref: str, field_name: Optional[str] = None) -> Callable:
    """`fn` when it fits the contract; HookContractError naming the task (`where`), the field (`field_name`, e.g.
    `metrics[1].aggregation`; default: the contract's) and the reference."""
    what = f"{where} field '{field_name or contract.field}': hook '{ref}'"
    proto = _protocol_signature(contract)
    if not callable(fn):
        raise HookContractError(f"{what} is a {type(fn).__name__}, not a function {proto}")
    called, self_arg = fn, 0
    if contract.method != "__call__":  # a class: its method is what the harness calls, `self` first
        called, self_arg = getattr(fn, contract.method, None), 1
        if not isinstance(fn, type) or not callable(called):
            raise HookContractError(f"{what} is not a class with a method {proto}")
    try:
        sig = inspect.signature(called)
    except (TypeError, ValueError):  # a builtin without a signature: trusted
        return fn
    if not any(_accepts(sig, n + self_arg) for n in contract.arities):
        raise HookContractError(f"{what} has the signature {sig}; the harness calls it as {proto}")
    declared = _declared_return(called)
    if contract.returns is not None and not _fits(declared, contract.returns):
        raise HookContractError(
            f"{what} declares it returns {_type_name(declared)}; its contract is {proto} (harness.contract.hooks)"
        )
    return fn


def _protocol_signature(contract: HookContract) -> str:
    sig = inspect.signature(getattr(contract.protocol, contract.method))
    params = [p for p in sig.parameters.values() if p.name != "self"]
    text = ", ".join(f"{p.name}: {p.annotation}" + ("" if p.default is p.empty else f" = {p.default}") for p in params)
    name = contract.method if contract.method != "__call__" else contract.field.split(".")[-1]
    return f"{name}({text}) -> {sig.return_annotation}"


def _type_name(value: Any) -> str:
    return getattr(value, "__name__", None) or str(value)


# -- checking what a hook returned, where it is used -----------------------------------------------------------
def check_return(value: Any, field_name: str, where: str, expected: str, ok: bool) -> Any:
    """`value` when `ok`; else HookContractError naming the hook and what it returned."""
    if not ok:
        raise HookContractError(
            f"{where}: the {field_name} hook returned {type(value).__name__} {short_repr(value)}; its contract is "
            f"{expected} (harness.contract.hooks)"
        )
    return value


def oracle_reply(value: Any, where: str) -> OracleReply:
    """An `oracle_answer` value as {"text", "structured"}; HookContractError for anything else."""
    if isinstance(value, str):
        return {"text": value, "structured": None}
    ok = isinstance(value, Mapping) and isinstance(value.get("text", ""), str)
    check_return(value, "oracle_answer", where, 'str or {"text": str, "structured": ...}', ok)
    return {"text": value.get("text", ""), "structured": value.get("structured")}


def answer_space_value(value: Any, where: str) -> AnswerSpaceValue:
    """An `answer_space` value as a list of strings or a dict of them; HookContractError for anything else."""
    expected = "list[str] or dict[str, list[str]]"
    if isinstance(value, Mapping):
        ok = all(isinstance(v, (list, tuple)) for v in value.values())
        check_return(value, "answer_space", where, expected, ok)
        return {str(k): [str(x) for x in v] for k, v in value.items()}
    ok = isinstance(value, (list, tuple)) and not isinstance(value, str)
    check_return(value, "answer_space", where, expected, ok)
    return [str(x) for x in value]


def short_repr(value: Any, limit: int = 60) -> str:
    """repr(value), cut to `limit` characters: how messages quote a value."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- model methods ------------------------------------------------------------------------------------------
@runtime_checkable
class ModelMethods(Protocol):
    """What the evaluator calls on a model adapter (a `harness.api.Model` subclass; the base class documents
    each method and implements all but `generate`)."""

    def identity(self) -> dict[str, Any]:
        """Everything that changes answers: goes into every response-cache key and the results."""
        ...

    def prepare_task(self, info: TaskInfo) -> None:
        """Once per task before any request; raise UnsuitableModelError when the model cannot work on it."""
        ...

    def generate(self, requests: list[Request]) -> list[Union[Response, BaseException]]:
        """One Response (or the exception that request failed with) per request, in order."""
        ...

    def generate_iter(self, requests: list[Request]) -> Iterator[tuple[int, Union[Response, BaseException]]]:
        """(index, result) pairs as answers finish (the default wraps `generate`)."""
        ...

    def close(self) -> None:
        """Free the model's resources (servers, GPU memory); called once after the run."""
        ...


def check_model_class(cls: type) -> None:
    """HookContractError when an adapter class overrides a `ModelMethods` method with parameters that cannot
    take the evaluator's arguments."""
    for name, member in vars(ModelMethods).items():
        if name.startswith("_") or not callable(member):
            continue
        method = getattr(cls, name, None)
        if method is None:
            raise HookContractError(f"model class {cls.__qualname__} has no method {name}(); derive it from harness.api.Model")
        n = len(inspect.signature(member).parameters)  # self included
        if not _accepts(inspect.signature(method), n):
            raise HookContractError(
                f"model class {cls.__qualname__}.{name}{inspect.signature(method)} cannot be called as "
                f"{name}{inspect.signature(member)} (harness.contract.hooks.ModelMethods)"
            )
