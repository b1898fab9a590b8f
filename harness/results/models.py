"""The results file and the samples-file line as pydantic models: the one statement of their schema.

Schema version 2 (docs/results.md): lm-eval's keys (`results`, `groups`, `configs`, `n-shot`, ...) beside the
harness's own (`task_results`, `group_results`, `samples_files`, ...). Numbers are strict (a string "0.5" is
not a number) and finite (NaN and infinities are refused); unknown keys are kept, so a newer harness's extra
fields read. A version-1 file (the harness's entries under `results`/`groups`) is upgraded by `Results`
itself (harness.results.upgrade). harness/results/schemas/results.schema.json is generated from `Results`
(`python -m harness.results.models > harness/results/schemas/results.schema.json`), never edited by hand.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, AllowInfNan, BaseModel, ConfigDict, Field, Strict, model_validator

from harness.results.upgrade import upgrade_results

#: a finite JSON number (an int is a number; a bool or a numeric string is not)
Number = Annotated[float, Strict(), AllowInfNan(False)]
Int = Annotated[int, Strict()]
Bool = Annotated[bool, Strict()]
#: a seed NumPy's global generator takes (0 to 2**32 - 1): a rescore seeds the generators with it
Seed = Annotated[int, Strict(), Field(ge=0, le=2**32 - 1)]
Count = Annotated[int, Strict(), Field(ge=0)]
Str = Annotated[str, Strict()]
Share = Annotated[float, Strict(), AllowInfNan(False), Field(ge=0, le=1)]
#: longest model or task name a reader accepts (a name is a table cell, a folder name, a row label)
MAX_NAME = 512
Name = Annotated[str, Strict(), Field(max_length=MAX_NAME)]


def _inside_folder(name: str) -> str:
    """A samples file is named relative to its results file's folder, never outside it."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or ":" in name or ".." in parts or not name.strip():
        raise ValueError(f"{name!r}: expected a file name inside the results file's folder (no absolute path, no '..')")
    return name


SamplesFileName = Annotated[str, Strict(), Field(max_length=MAX_NAME), AfterValidator(_inside_folder)]
_OPEN = ConfigDict(extra="allow", populate_by_name=True)


class Metric(BaseModel):
    """One metric of a task or group in `task_results`/`group_results`."""

    model_config = _OPEN
    value: Optional[Number] = Field(description="the metric's value; null when nothing could be scored")
    ci: Optional[list[Optional[Number]]] = Field(
        None,
        min_length=2,
        max_length=2,
        description="[low, high] of the 95 % clustered bootstrap interval; null when there is none",
    )
    n: Optional[Count] = Field(None, description="how many samples the value is over")
    higher_is_better: Optional[Bool] = Field(None, description="the metric's direction (default: higher)")
    ci_note: Optional[Str] = Field(
        None,
        description="why ci is null although the metric has a value (a task's own aggregation, run once; a "
        "resample that raised)",
    )


Counts = dict[Str, Count]


class BreakdownCell(BaseModel):
    """One value of a breakdown field: its sample count and, per metric, the value over those samples."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Metric] = Field(init=False)  # metric name -> {value, n}
    n_samples: Count = Field(description="samples with this value of the field")


class TaskResult(BaseModel):
    """The harness's entry for one task: accounting, metrics with CIs, breakdowns, paper tables."""

    model_config = _OPEN
    version: Union[Number, Str] = Field(description="the task's version (its YAML `version`)")
    n_rows: Count = Field(description="rows in the split: loaded plus dropped by the loader")
    n_samples: Count = Field(description="samples evaluated (rows selected by --limit)")
    n_not_selected: Count = Field(0, description="loaded rows left out by --limit")
    n_scored: Count = Field(description="samples with scores (valid or invalid answers)")
    n_errors: Count = Field(description="samples with an error instead of scores")
    errors: Counts = Field(default_factory=dict, description="error count per kind")
    errors_by_reason: dict[Str, Counts] = Field(default_factory=dict, description="per kind, count per reason")
    error_examples: list[dict[str, Any]] = Field(default_factory=list, description="a few errors in full")
    n_invalid: Count = Field(0, description="scored samples whose answer could not be parsed")
    n_dropped: Count = Field(0, description="rows the loader could not use")
    dropped: Counts = Field(default_factory=dict, description="dropped rows per reason")
    dropped_examples: list[dict[str, Any]] = Field(default_factory=list, description="a few dropped rows")
    coverage: Optional[Share] = Field(None, description="n_scored / n_rows")
    headline: Optional[Name] = Field(None, description="the metric a leaderboard ranks on and compare gates")
    metrics: dict[Name, Metric] = Field(description="metric name -> value, interval and count")
    breakdowns: dict[Name, dict[Str, BreakdownCell]] = Field(
        default_factory=dict, description="per breakdown (fields joined by 'x'), per value: metrics over its samples"
    )
    tables: Any = Field(None, description="the task's or group's paper tables (its aggregate hook)")
    tables_error: Optional[Str] = Field(None, description="the aggregate hook raised: no tables, incomplete")
    aggregation_errors: list[Str] = Field(
        default_factory=list, description="metrics whose aggregation raised (value null): the run is incomplete"
    )


class GroupResult(BaseModel):
    """The harness's entry for one group: members, aggregate metrics, summed accounting, tables."""

    model_config = _OPEN
    tasks: list[Name] = Field(description="the group's leaf tasks")
    metrics: dict[Name, Metric] = Field(description="aggregate metrics over the members")
    n_rows: Count = Field(description="rows of the members' splits")
    n_scored: Count = Field(description="scored samples of the members")
    n_errors: Count = Field(description="error samples of the members")
    n_dropped: Count = Field(0, description="rows the members' loaders dropped")
    errors: Counts = Field(default_factory=dict, description="error count per kind")
    errors_by_reason: dict[Str, Counts] = Field(default_factory=dict, description="per kind, count per reason")
    dropped: Counts = Field(default_factory=dict, description="dropped rows per reason")
    coverage: Optional[Share] = Field(None, description="n_scored / n_rows")
    aggregation_errors: list[Str] = Field(
        default_factory=list,
        description="aggregate_metric_list functions that raised or returned no number (value null): incomplete",
    )


class ModelIdentity(BaseModel):
    """What identifies a model's weights and arguments (the adapter's `identity()`; an import's provenance)."""

    model_config = _OPEN
    name: Optional[Str] = Field(None, description="the adapter's registered name")
    args: Optional[dict[str, Any]] = Field(None, description="the model args as given (`--model_args`)")


class ModelInfo(BaseModel):
    """The model evaluated: its display name, identity (adapter, args, checkpoint) and capabilities."""

    model_config = _OPEN
    name: Name = Field(description="the model's display name (row label in reports)")
    identity: ModelIdentity = Field(default_factory=ModelIdentity, description="what identifies weights and args")
    capabilities: dict[str, Any] = Field(default_factory=dict, description="video, images, max_frames, ...")


class RecordedMetric(BaseModel):
    """A metric as the task config declares it (`metrics:` in its YAML)."""

    model_config = _OPEN
    name: Name = Field(description="the metric's name (a key the score hook returns)")
    aggregation: Optional[Str] = Field(None, description="mean, median, sum, a registered aggregation")
    higher_is_better: Optional[Bool] = Field(None, description="the metric's direction")


class RecordedDataset(BaseModel):
    """The task config's `dataset` section, as far as readers use it."""

    model_config = _OPEN
    split: Optional[Str] = Field(None, description="the split the task reads")
    data_key: Optional[Str] = Field(None, description="the sub-folder of --data the task reads")


class RecordedMetadata(BaseModel):
    """The task config's `metadata`, as far as readers use it."""

    model_config = _OPEN
    breakdown_labels: Optional[dict[str, Any]] = Field(None, description="field -> [[value, name], ...]")


class RecordedTaskConfig(BaseModel):
    """The validated task config a run records (harness.config.schema.TaskConfig, dumped), as far as the
    readers use it; its other keys are kept as they are."""

    model_config = _OPEN
    task: Optional[Name] = Field(None, description="the task's name")
    description: Optional[Str] = Field(None, description="what the task measures")
    dataset: RecordedDataset = Field(default_factory=RecordedDataset, description="where its rows come from")
    metrics: list[RecordedMetric] = Field(default_factory=list, description="the metrics it declares")
    cluster_field: Optional[Str] = Field(None, description="the field bootstrap CIs cluster on (the video)")
    breakdowns: list[Union[Str, list[Str]]] = Field(default_factory=list, description="fields metrics split by")
    metadata: RecordedMetadata = Field(default_factory=RecordedMetadata, description="free-form task metadata")


class TaskRunConfig(BaseModel):
    """`config.tasks[task]`: what a run of one task was, for compare and leaderboard to match runs on."""

    model_config = _OPEN
    version: Union[Number, Str] = Field(description="the task's version")
    frame_spec: dict[str, Any] = Field(description="the task's frame spec (or --frames)")
    effective_frame_spec: dict[str, Any] = Field(description="the spec under the model's frame budget")
    frame_spec_digest: Str = Field(description="digest of the effective spec (what runs are matched on)")
    plugin: Optional[Str] = Field(description="the plugin the task came from")
    plugin_version: Optional[Str] = Field(None, description="that plugin's version")
    frames_overridden: Bool = Field(False, description="whether --frames replaced the task's spec")
    config: RecordedTaskConfig = Field(description="the validated task config")
    data_source: Optional[dict[str, Any]] = Field(None, description="the hub release the task fetched")


class RunSettings(BaseModel):
    """`config`: the run's settings, the harness's and lm-eval's keys."""

    model_config = _OPEN
    tasks: dict[Name, TaskRunConfig] = Field(description="per task: version, frame specs, plugin, config")
    model: Optional[Str] = Field(None, description="lm-eval: the --model name")
    model_args: Union[Str, dict[str, Any]] = Field("", description="lm-eval: the model args as 'k=v,...'")
    seed: Optional[Seed] = Field(0, description="--seed")
    limit: Optional[Number] = Field(None, description="--limit (a count or a fraction)")
    batch_size: Optional[Union[Int, Str]] = Field(None, description="--batch_size")
    batch_sizes: list[Int] = Field(default_factory=list, description="lm-eval: per-call batch sizes")
    bootstrap_iters: Optional[Int] = Field(None, description="bootstrap resamples of the intervals")
    judge: Optional[dict[str, Any]] = Field(None, description="the judge model, null for rule scoring")
    package_versions: dict[str, Any] = Field(default_factory=dict, description="versions of key packages")
    git_hash: Optional[Str] = Field(None, description="the harness checkout's commit")
    world_size: Optional[Int] = Field(1, description="processes the run was spread over")
    device: Optional[Str] = Field(None, description="lm-eval: the device model_args named")
    use_cache: Optional[Str] = Field(None, description="lm-eval: the response cache folder")
    gen_kwargs: Union[dict[str, Any], Str, None] = Field(None, description="--gen_kwargs")
    split: Optional[Str] = Field(None, description="--split")
    requested: list[Str] = Field(default_factory=list, description="the --tasks names as given")
    random_seed: Optional[Seed] = Field(None, description="seed of Python's random (null: not set)")
    numpy_seed: Optional[Seed] = Field(None, description="seed of NumPy's generator (null: not set)")
    torch_seed: Optional[Seed] = Field(None, description="seed of torch (null: not set)")
    fewshot_seed: Optional[Seed] = Field(None, description="lm-eval's few-shot sampler seed (null: unused)")


#: lm-eval's metric key in a task's or group's entry: `<metric>,<filter>` (`none` without a filter_list;
#: harness.config.filter_list: a pipeline name has no comma); `<metric>_stderr,<filter>` is its stderr
_METRIC_KEY = re.compile(r"[^,]+,[^,]+")
_STDERR_KEY = re.compile(r"[^,]+_stderr,[^,]+")
_STDERR_VALUE = {"anyOf": [{"type": ["number", "null"]}, {"const": "N/A"}]}


class LmEvalEntry(BaseModel):
    """lm-eval's entry of a task or group (a group is listed under `results` too): name, alias, sample_len and
    per metric and filter `"<metric>,<filter>"` (`"<metric>,none"` without a filter_list) and
    `"<metric>_stderr,<filter>"`, nothing else (so lm-eval's make_table prints one row per metric and filter)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "patternProperties": {
                f"^{_STDERR_KEY.pattern}$": _STDERR_VALUE,
                f"^(?!{_STDERR_KEY.pattern}$){_METRIC_KEY.pattern}$": {"type": ["number", "null"]},
            },
            "additionalProperties": False,
        },
    )
    name: Optional[Name] = Field(None, description="the task or group name")
    alias: Name = Field(description="lm-eval's display name")
    sample_len: Optional[Count] = Field(None, description="samples evaluated")

    @model_validator(mode="after")
    def _metric_keys(self) -> LmEvalEntry:
        for key, value in (self.model_extra or {}).items():
            if not _METRIC_KEY.fullmatch(key):
                raise ValueError(
                    f"key {key!r}: expected only '<metric>,<filter>' and '<metric>_stderr,<filter>' keys "
                    "(filter 'none' without a filter_list)"
                )
            stderr_na = _STDERR_KEY.fullmatch(key) is not None and value == "N/A"
            if not stderr_na and not _is_number_or_null(value):
                raise ValueError(f"key {key!r}: expected a finite number or null, got {_short(value)}")
        return self


class NSamples(BaseModel):
    """lm-eval's `n-samples` entry of a task."""

    model_config = _OPEN
    original: Count = Field(description="rows of the split")
    effective: Count = Field(description="samples evaluated")


class Results(BaseModel):
    """A results file, `OUT/<model>/results_<timestamp>.json` (schema version 2)."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        json_schema_extra={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "video-harness results file (schema version 2: lm-eval's results schema plus the harness's "
            "own; generated from harness.results.models.Results)",
        },
    )
    schema_version: Literal[2] = Field(description="the results schema version (older files are upgraded)")
    harness_version: Str = Field(description="the harness version that wrote the file")
    created: Str = Field(description="UTC timestamp, also in the file names")
    complete: Bool = Field(True, description="false when a task scored nothing or errors exceed max_error_rate")
    incomplete_reasons: list[Str] = Field(default_factory=list, description="why the run is incomplete")
    max_error_rate: Optional[Share] = Field(None, description="--max_error_rate the run was held to")
    model: ModelInfo = Field(description="the model evaluated")
    config: RunSettings = Field(description="the run's settings")
    task_results: dict[Name, TaskResult] = Field(description="the harness's own per-task entries")
    group_results: dict[Name, GroupResult] = Field(default_factory=dict, description="per-group entries")
    samples_files: dict[Name, SamplesFileName] = Field(
        default_factory=dict, description="task -> samples file name, in the results file's folder"
    )
    upgraded_from_schema: Optional[Int] = Field(None, description="schema version read from (in memory only)")
    rescored_from: Optional[list[Str]] = Field(None, description="the samples files a --rescore read")
    imported_from: Optional[dict[str, Any]] = Field(None, description="`import`: source file, sha256, commit")
    results: dict[Name, LmEvalEntry] = Field(description="lm-eval's per-task metrics, its groups' too")
    groups: dict[Name, LmEvalEntry] = Field(default_factory=dict, description="lm-eval's per-group metrics")
    configs: dict[Name, dict[str, Any]] = Field(default_factory=dict, description="lm-eval: task configs")
    versions: dict[Name, Union[Number, Str, None]] = Field(default_factory=dict, description="lm-eval")
    n_shot: dict[Name, Int] = Field(default_factory=dict, alias="n-shot", description="lm-eval: always 0")
    higher_is_better: dict[Name, dict[Name, Optional[Bool]]] = Field(default_factory=dict, description="lm-eval")
    n_samples: dict[Name, NSamples] = Field(default_factory=dict, alias="n-samples", description="lm-eval")
    group_subtasks: dict[Name, list[Name]] = Field(default_factory=dict, description="lm-eval: group members")
    git_hash: Optional[Str] = Field(None, description="lm-eval: the harness commit")
    date: Optional[Number] = Field(None, description="lm-eval: start time (epoch seconds)")
    start_time: Optional[Number] = Field(None, description="lm-eval: start time (epoch seconds)")
    end_time: Optional[Number] = Field(None, description="lm-eval: end time (epoch seconds)")
    total_evaluation_time_seconds: Optional[Str] = Field(None, description="lm-eval: wall time, a string")
    model_source: Optional[Str] = Field(None, description="lm-eval: the --model name")
    model_name: Optional[Str] = Field(None, description="lm-eval: the model's name from its args")
    model_name_sanitized: Optional[Str] = Field(None, description="lm-eval: model_name as a folder name")
    task_hashes: dict[Name, Str] = Field(default_factory=dict, description="lm-eval: hash of each task's samples")
    transformers_version: Optional[Str] = Field(None, description="lm-eval: transformers' version or N/A")
    fewshot_as_multiturn: Optional[Bool] = Field(None, description="lm-eval: always false here")
    system_instruction: Optional[Str] = Field(None, description="lm-eval: null (no system prompts)")
    system_instruction_sha: Optional[Str] = Field(None, description="lm-eval: null")
    chat_template: Optional[Str] = Field(None, description="lm-eval: null (no chat templates)")
    chat_template_sha: Optional[Str] = Field(None, description="lm-eval: null")


class V1Entry(BaseModel):
    """A version-1 per-task or per-group entry, as far as the upgrade reads it."""

    model_config = _OPEN
    metrics: dict[str, dict[str, Any]] = Field(default_factory=dict, description="metric -> value, ci, n")
    n_samples: Count = Field(0, description="samples evaluated")
    tasks: list[Str] = Field(default_factory=list, description="a group's members")


class V1TaskConfig(BaseModel):
    """A version-1 `config.tasks` entry, as far as the upgrade reads it."""

    model_config = _OPEN
    config: dict[str, Any] = Field(default_factory=dict, description="the validated task config")


class V1Settings(BaseModel):
    """A version-1 `config`, as far as the upgrade reads it."""

    model_config = _OPEN
    tasks: dict[str, V1TaskConfig] = Field(default_factory=dict, description="per-task run config")
    model_args: Union[dict[str, Any], Str, None] = Field(None, description="the model args (a dict in v1)")


class V1Results(BaseModel):
    """A version-1 results file (before lm-eval's schema), as far as the upgrade reads it."""

    model_config = _OPEN
    schema_version: Literal[1] = Field(1, description="absent or 1 in version-1 files")
    model: dict[str, Any] = Field(description="the model evaluated")
    config: V1Settings = Field(default_factory=V1Settings, description="the run's settings")
    results: dict[str, V1Entry] = Field(description="per-task entries with lm-eval's flat keys mixed in")
    groups: dict[str, V1Entry] = Field(default_factory=dict, description="per-group entries")
    n_samples: dict[str, NSamples] = Field(default_factory=dict, alias="n-samples", description="lm-eval")


class MediaEntry(BaseModel):
    """One video part of a sample as it was decoded (the report's viewer decodes the same frames again)."""

    model_config = _OPEN
    path: Optional[Str] = Field(None, description="the file, relative to the dataset root")
    label: Optional[Str] = Field(None, description="the part's label in the prompt")
    indices: list[Int] = Field(default_factory=list, description="the source frames used")
    timestamps: list[Optional[Number]] = Field(default_factory=list, description="their times in seconds")
    segments: list[Any] = Field(default_factory=list, description="the clip's segments")
    fps: Optional[Number] = Field(None, description="the video's frame rate")


class SampleError(BaseModel):
    """Why a sample has no scores: a counted error."""

    model_config = _OPEN
    kind: Str = Field(description="media, request, generation, timeout, parse, score, ...")
    reason: Optional[Str] = Field(None, description="a short machine reason (e.g. truncated, ConnectionError)")
    message: Optional[Str] = Field(None, description="the message naming the file or field")


class ParsedAnswer(BaseModel):
    """The answer as the task parsed it."""

    model_config = _OPEN
    answer: Any = Field(None, description="the parsed answer")
    valid: Optional[Bool] = Field(None, description="whether the task could read an answer (invalid: wrong)")
    note: Optional[Str] = Field(None, description="why it is invalid")
    unusable: Optional[Str] = Field(None, description="why the task's scorer could not use the answer")
    extra: Optional[dict[str, Any]] = Field(
        None, description="the parser's extra fields; `filtered`: per filter_list pipeline, its filtered answer"
    )


class Sample(BaseModel):
    """One line of a samples file, `OUT/<model>/samples_<task>_<timestamp>.jsonl`."""

    model_config = _OPEN
    doc_id: Union[Str, Int, None] = Field(None, description="the row's id (unique within the task)")
    task: Optional[Name] = Field(None, description="the task the sample belongs to")
    doc: dict[str, Any] = Field(description="the row as the loader gave it")
    target: Any = Field(None, description="the reference answer")
    prompt: Any = Field(None, description="the prompt the model saw")
    frame_spec: Optional[Str] = Field(None, description="digest of the effective frame spec")
    media: Optional[list[MediaEntry]] = Field(None, description="which frames of which files were decoded")
    raw: Any = Field(None, description="the model's raw output")
    structured: Any = Field(None, description="structured output, when the request asked for one")
    parsed: Optional[ParsedAnswer] = Field(None, description="the parsed answer: answer, valid, note")
    scores: Optional[dict[Name, Any]] = Field(
        None, description="metric -> the sample's score (`metric,pipeline` under a filter_list)"
    )
    error: Optional[SampleError] = Field(None, description="kind, reason, message when it failed")


def upgraded(data: Any) -> Any:
    """Parsed results of any schema version in the current shape: a version-1 file is checked against
    `V1Results` (the shape the upgrade reads) and upgraded (harness.results.upgrade); a newer version is a
    ResultsVersionError; anything else is returned as it is, for `Results` to validate."""
    if isinstance(data, dict) and data.get("schema_version", 1) == 1:
        V1Results.model_validate(data)
        return upgrade_results(data)
    if isinstance(data, dict) and type(data.get("schema_version")) is int:
        return upgrade_results(data)
    return data


def _is_number_or_null(value: Any) -> bool:
    if value is None:
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def results_json_schema() -> dict[str, Any]:
    """The JSON schema of a results file, derived from `Results` (what schemas/results.schema.json holds)."""
    return Results.model_json_schema(by_alias=True, mode="validation")


if __name__ == "__main__":
    print(json.dumps(results_json_schema(), indent=2, sort_keys=True))
