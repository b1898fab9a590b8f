"""The one reader of results and samples files: every command that reads them (report, compare, leaderboard,
--rescore, import, the TempCloze Hard-subset builder) goes through `read_results` and `iter_samples`.

Nothing in such a file is trusted (a leaderboard reads files strangers submit). Before a byte is parsed the
path must be a regular file (a FIFO, a device or a folder is refused, and opening never blocks) within the size
limit; the text may start with a UTF-8 byte order mark; the JSON must parse (NaN and infinities are refused,
not read as numbers), nest at most MAX_DEPTH deep and hold no string longer than MAX_STRING; then the models of
harness.results.models check every field. A file that fails raises ResultsFileError (exit 2): one line naming
the file, the field and what was expected. Samples files a results file names resolve inside its folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from pydantic import ValidationError

from harness.errors import ConfigError
from harness.files import MAX_JSON_DEPTH, open_regular
from harness.results.models import Results, Sample, upgraded
from harness.results.upgrade import ResultsVersionError

MAX_RESULTS_BYTES = 64 * 2**20  # a results file of hundreds of tasks with breakdowns is a few MB
MAX_SAMPLES_BYTES = 4 * 2**30  # a samples file holds every model output of a task
MAX_LINE_BYTES = 64 * 2**20  # one sample: its doc, prompt, raw output and scores
MAX_STRING = 8 * 2**20  # characters in one JSON string (a model output; names are capped lower by the models)
MAX_DEPTH = MAX_JSON_DEPTH  # nesting of objects and lists
_BOM = b"\xef\xbb\xbf"
_SHOWN = 60  # characters of a bad value shown in an error


class ResultsFileError(ConfigError, ValueError):
    """A results or samples file that cannot be read as one: the message names the file, the field and what
    was expected (exit 2). Also a ValueError, so builders report it as one line like their other input errors."""


class SamplesFileError(ResultsFileError):
    """A samples file line that is not a sample record; the message names the file and the line (exit 2)."""


class _NonFinite:
    """A NaN or infinity read from JSON: kept as a marker until the field holding it is known."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _constant(text: str) -> _NonFinite:
    return _NonFinite(text)


def _float(text: str) -> Any:
    value = float(text)
    return value if value not in (float("inf"), float("-inf")) else _NonFinite(text)


def _field(loc: Sequence[Any]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else repr(value[:_SHOWN])
    return text if len(text) <= _SHOWN + 5 else text[:_SHOWN] + "..."


def check_tree(value: Any, where: str, loc: tuple = (), nonfinite_ok: Optional[set] = None) -> None:
    """Depth, string length and NaN/infinity checks over parsed JSON, iteratively (no recursion to exhaust);
    ResultsFileError naming the field. `nonfinite_ok`: a set that collects the metric values that are not
    finite numbers (NaN, a string, ...), each replaced by None, instead of refusing them."""
    stack = [(value, loc)]
    while stack:
        node, at = stack.pop()
        if len(at) > MAX_DEPTH:
            raise ResultsFileError(f"{where}: field '{_field(at[:8])}...': nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, str):
            if len(node) > MAX_STRING:
                raise ResultsFileError(
                    f"{where}: field '{_field(at)}': a string of {len(node)} characters; at most {MAX_STRING}"
                )
        elif isinstance(node, dict):
            for k, v in node.items():
                if len(k) > MAX_STRING:
                    raise ResultsFileError(f"{where}: field '{_field(at)}': a key of {len(k)} characters")
                if nonfinite_ok is not None and _unusable_metric(at + (k,), v, nonfinite_ok):
                    node[k] = None
                    continue
                stack.append((v, at + (k,)))
        elif isinstance(node, list):
            stack.extend((v, at + (i,)) for i, v in enumerate(node))
        elif isinstance(node, _NonFinite):
            raise ResultsFileError(
                f"{where}: field '{_field(at)}': {node.text} where a finite number or null is expected"
            )


def _unusable_metric(at: tuple, value: Any, noted: set) -> bool:
    """A metric value (task_results.T.metrics.M.value) that is not a finite number or null (NaN, a string,
    a bool, a list...): noted as (task, metric, what it was), to be read as no value."""
    if len(at) == 5 and at[0] == "task_results" and at[2] == "metrics" and at[4] == "value":
        if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            return False
        what = value.text if isinstance(value, _NonFinite) else f"not a number ({_shown(value)})"
        noted.add((str(at[1]), str(at[3]), what))
        return True
    return False


def parse_json(raw: bytes, where: str, line: bool = False) -> Any:
    """JSON text (a UTF-8 BOM allowed) parsed with NaN/infinity kept as markers; ResultsFileError otherwise
    (`line`: one line of a samples file, worded so)."""
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsFileError(f"{where}: not UTF-8 text (byte {exc.start}); give a JSON file") from None
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float)
    except RecursionError:
        raise ResultsFileError(f"{where}: JSON nested too deep (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # JSONDecodeError (truncated, not JSON) or an integer too long to convert
        if line:
            raise ResultsFileError(f"{where}: not a JSON line ({exc}), truncated or damaged") from None
        raise ResultsFileError(f"{where}: not valid JSON ({exc}); the file is damaged or truncated") from None


def validation_message(where: str, exc: ValidationError) -> str:
    """The first error of a model validation as one line: file, field, what was expected, what was there."""
    err = exc.errors(include_url=False)[0]
    msg = err["msg"].removeprefix("Value error, ")
    got = "" if err["type"] in ("missing", "value_error") else f" (got {_shown(err.get('input'))})"
    more = len(exc.errors()) - 1
    tail = f"; {more} more problem(s)" if more > 0 else ""
    return f"{where}: field '{_field(err['loc'])}': {msg}{got}{tail}"


@dataclass
class ResultsFile:
    """A results file read and validated: the data (current schema, the dict reports work on), its model,
    and the metric values that were not finite numbers, as (task, metric, what it was), read as null (only
    with `nonfinite_metrics="note"`)."""

    path: Path
    data: dict[str, Any]
    model: Results
    nonfinite: set[tuple[str, str, str]] = field(default_factory=set)


def read_results(path: str | Path, nonfinite_metrics: str = "refuse") -> ResultsFile:
    """A results file of any schema version, validated field by field (see the module docstring).
    `nonfinite_metrics="note"`: a metric value that is NaN or not a number reads as null and is listed in
    `nonfinite` (compare: a NaN headline in NEW is then a regression it names, not a refusal)."""
    path = Path(path)
    where = str(path)
    with open_regular(path, "results_*.json file", MAX_RESULTS_BYTES, ResultsFileError) as f:
        raw = f.read(MAX_RESULTS_BYTES + 1)
    data = parse_json(raw, where)
    noted: Optional[set] = set() if nonfinite_metrics == "note" else None
    check_tree(data, where, (), noted)
    if not isinstance(data, dict):
        raise ResultsFileError(f"{where}: a JSON {type(data).__name__}; expected a results object (docs/results.md)")
    try:
        data = upgraded(data)
        model = Results.model_validate(data)
    except ValidationError as exc:
        raise ResultsFileError(validation_message(where, exc)) from None
    except ResultsVersionError as exc:
        raise ResultsFileError(f"{where}: {exc}") from None
    except (AttributeError, TypeError, KeyError, ValueError) as exc:  # an upgrade meeting a shape V1Results lets by
        raise ResultsFileError(f"{where}: a version-1 results file of an unexpected shape ({exc})") from None
    return ResultsFile(path, data, model, noted or set())


def samples_file_of(results: ResultsFile, task: str) -> Path:
    """The samples file a results file names for `task`, resolved inside the results file's folder."""
    folder = results.path.parent.resolve()
    name = results.model.samples_files[task]
    target = (folder / name).resolve()
    if not target.is_relative_to(folder):
        raise ResultsFileError(
            f"{results.path}: field 'samples_files.{task}': {name!r} resolves outside the results file's "
            f"folder ({target}); expected a file beside it"
        )
    return target


NON_NULL = ("task", "doc")  # required keys that null does not satisfy (a target may be null)
_DAMAGED = "the file is damaged or not a harness samples file (rerun with --log_samples to write it again)"


def iter_samples(path: Path, required: Sequence[str] = ()) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for every non-empty line of a samples file, in order: the one samples reader
    (`--rescore`, reports, builders). A line that is not UTF-8 JSON within the limits, not a sample record
    (harness.results.models.Sample) or lacks one of the `required` keys is a SamplesFileError naming the file,
    the line and the field."""
    with open_regular(Path(path), "samples_*.jsonl file", MAX_SAMPLES_BYTES, ResultsFileError) as f:
        for lineno, raw in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
            where = f"{path}:{lineno}"
            if len(raw) > MAX_LINE_BYTES:
                raise SamplesFileError(f"{where}: a line over {MAX_LINE_BYTES} bytes; {_DAMAGED}")
            if not raw.strip():
                continue
            yield lineno, _sample(raw, where, required)


def _sample(raw: bytes, where: str, required: Sequence[str]) -> dict[str, Any]:
    try:
        rec = parse_json(raw, where, line=True)
        check_tree(rec, where)
    except ResultsFileError as exc:
        raise SamplesFileError(f"{exc}; {_DAMAGED}") from None
    if not isinstance(rec, dict):
        raise SamplesFileError(f"{where}: a JSON {type(rec).__name__}, not a sample record; {_DAMAGED}")
    missing = [k for k in required if k not in rec or (rec[k] is None and k in NON_NULL)]
    if missing:
        raise SamplesFileError(f"{where}: the record has no {', '.join(missing)}; {_DAMAGED}")
    try:
        Sample.model_validate(rec)
    except ValidationError as exc:
        raise SamplesFileError(f"{validation_message(where, exc)}; {_DAMAGED}") from None
    return rec


def read_samples(path: Path, required: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every record of a samples file (see `iter_samples` for the errors)."""
    return [rec for _, rec in iter_samples(path, required)]

