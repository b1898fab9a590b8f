"""The typed schema of task and group configs (pydantic), with errors that name file, field and expectation."""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from harness.config import filter_list as pipelines
from harness.config import lmms
from harness.config.generation import generation_problem
from harness.errors import ConfigError
from harness.frames.spec import FrameSpec


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HubRelease(_Strict):
    """The official release a task downloads from the Hugging Face hub when the run has no `--data` (and the
    dataset names no `source`).

    repo_id: the hub dataset ("owner/name"); revision: branch, tag or commit (`--data_revision` overrides;
    the commit actually used is recorded in the results); allow_patterns: the files this task needs, as
    `huggingface_hub` globs (`*` crosses `/`), with `{split}`, `{data_key}` and any `options` key filled in
    (e.g. `videos/{data_key}/{split}/*`); patterns_hook: instead of allow_patterns, a hook
    `module:function(split, options) -> list[str]` for a release whose folder names follow from the task's
    options through the plugin's own tables (CycliST: tier L1 -> `unicycle`); doi: the release's DOI, recorded
    with it. See harness/data/fetch.py.
    """

    repo_id: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
    revision: str = "main"
    allow_patterns: list[str] = Field(default_factory=list)
    patterns_hook: Optional[str] = None
    doi: Optional[str] = None

    @model_validator(mode="after")
    def _one_source_of_patterns(self) -> HubRelease:
        if bool(self.allow_patterns) == bool(self.patterns_hook):
            raise ValueError("give exactly one of allow_patterns (a list of globs) and patterns_hook")
        return self


class DatasetConfig(_Strict):
    """Where docs come from.

    source: a local folder (absolute, or relative to the YAML file) or a HF datasets hub id ("owner/name");
    data_key: the sub-folder of `--data DIR` to use when the user points the tasks at a local root;
    loader: a hook "module:function" or "file.py:function" called as loader(root, split, options) -> docs.
    name, data_files, revision, kwargs: passed to `datasets.load_dataset` when the source is read through HF
    `datasets` (a hub id, a packaged builder such as `json` / `parquet`, a `save_to_disk` folder or parquet
    files; see harness/data/hf_datasets.py); from_disk: the source is a `save_to_disk` folder (lmms-eval's
    `load_from_disk`); process_docs: a hook called on the `datasets.Dataset` before its rows are read;
    hub: the official release fetched into the HF cache when the run has no `--data` (HubRelease).
    """

    source: Optional[str] = None
    name: Optional[str] = None
    data_files: Optional[Union[str, list[str], dict[str, Union[str, list[str]]]]] = None
    revision: Optional[str] = None
    kwargs: dict[str, Any] = Field(default_factory=dict)
    from_disk: bool = False
    process_docs: Optional[str] = None
    data_key: Optional[str] = None
    loader: Optional[str] = None
    split: str = "test"
    train_split: Optional[str] = "train"
    options: dict[str, Any] = Field(default_factory=dict)
    build_hint: str = ""
    hub: Optional[HubRelease] = None


class PromptConfig(_Strict):
    """Jinja2 templates rendered with the doc's fields (and `doc`); files are relative to the YAML."""

    template: Optional[str] = None
    text: Optional[str] = None
    system: Optional[str] = None


class HooksConfig(_Strict):
    """Python hooks by reference ("module:function" or "file.py:function" next to the YAML)."""

    build_request: Optional[str] = None
    target: Optional[str] = None
    parse: Optional[str] = None
    score: Optional[str] = None
    #: prepare_scoring(records: list[dict]) -> None: every answer of the task before any is scored (batch work
    #: for `score`). Never recorded in results (`exclude`): by contract it changes no score, only speed.
    prepare_scoring: Optional[str] = Field(default=None, exclude=True)
    aggregate: Optional[str] = None
    oracle_answer: Optional[str] = None
    answer_space: Optional[str] = None


class MetricConfig(_Strict):
    """A per-sample score key and how it is aggregated over samples.

    aggregation: `mean`, `median`, `sum`, a registered aggregation or metric (e.g. `bleu4`, `cider_d`,
    `ap50`), or a task function `file.py:function` (see harness/scoring/aggregations.py);
    bootstrap: replicates for its CI (default 1000 for means, 100 for corpus aggregations);
    kwargs: lm-eval's metric keyword arguments (`ignore_case`, `ignore_punctuation`, `regexes_to_ignore`, ...:
    the other keys of a `metric_list` entry), passed to the metric as lmms-eval passes them.
    Under a `filter_list`, `name` is lm-eval's `metric,pipeline` (harness/config/filter_list.py).
    """

    name: str
    aggregation: str = "mean"
    higher_is_better: bool = True
    headline: bool = False
    bootstrap: Optional[int] = Field(default=None, ge=1)
    kwargs: dict[str, Any] = Field(default_factory=dict)


class LmmsConfig(_Strict):
    """lmms-eval's document functions (hook references or lm-eval's field names / Jinja strings), called
    with lmms-eval's arguments; set when the config is in lm-eval's format (harness/config/lmms.py)."""

    doc_to_visual: Optional[Union[str, dict[str, str]]] = None
    doc_to_text: Optional[Union[str, int, dict[str, str]]] = None
    doc_to_target: Optional[Union[str, int, list, dict[str, str]]] = None
    doc_to_messages: Optional[dict[str, str]] = None
    doc_to_choice: Optional[Union[str, list, dict[str, Any]]] = None
    process_results: Optional[dict[str, str]] = None
    #: lmms_eval_specific_kwargs as written: per model family, `default` for the others
    specific_kwargs: Optional[dict[str, Any]] = None
    #: model_specific_generation_kwargs / model_specific_target_kwargs as written (per model family)
    generation_kwargs_by_model: Optional[dict[str, Any]] = None
    target_kwargs_by_model: Optional[dict[str, Any]] = None
    output_type: str = "generate_until"
    score_key: Optional[str] = None
    description: Optional[str] = None


class TaskConfig(_Strict):
    """One task: data, prompt, frames, generation, hooks, metrics and breakdowns."""

    task: str
    version: Union[int, float, str]
    description: str = ""
    groups: list[str] = Field(default_factory=list)
    variant_of: Optional[str] = None
    dataset: DatasetConfig = Field(default_factory=DatasetConfig)
    doc_id: str = "id"
    media_field: Optional[str] = "video"
    target_field: Optional[str] = "answer"
    prior_key: Optional[str] = None
    answer_space: Optional[list[str]] = None
    #: the kind of answer the task asks for, matched against a model's `answer_types` before a run:
    #: `text` (a short or free-form text answer), `clip_choice` (pick the candidate clip that fills a gap,
    #: as TempCloze), `masks` (segmentation masks), `boxes` (bounding boxes), or a plugin's own word
    answer_type: str = "text"
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    frames: FrameSpec = Field(default_factory=lambda: FrameSpec(strategy="uniform", count=16))
    generation: dict[str, Any] = Field(default_factory=lambda: {"max_new_tokens": 64, "temperature": 0.0})
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    metrics: list[MetricConfig] = Field(  # at least one: the headline is one of them (leave it out: accuracy)
        default_factory=lambda: [MetricConfig(name="accuracy", headline=True)], min_length=1
    )
    breakdowns: list[Union[str, list[str]]] = Field(default_factory=list)
    cluster_field: Optional[str] = "video"
    judge: Optional[str] = None
    log_doc_fields: Optional[list[str]] = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    lmms: Optional[LmmsConfig] = None
    #: lm-eval's filter pipelines ([{name, filter: [{function: name or reference, **kwargs}]}], see
    #: harness/data/filters.py): each metric is then declared once per pipeline, as `metric,pipeline`
    filter_list: Optional[list[dict[str, Any]]] = None

    @field_validator("generation")
    @classmethod
    def _generation_in_range(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = generation_problem(value)  # reported by pydantic, with the file and field
        if problem is not None:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _metrics_per_pipeline(self) -> TaskConfig:
        if self.filter_list is not None:
            try:
                names = pipelines.pipeline_names(self.filter_list, "filter_list")
            except ConfigError as exc:  # reported by pydantic, with the file and field
                raise ValueError(str(exc)) from None
            self.metrics = pipelines.expand_metrics(self.metrics, names)
        return self

    @field_serializer("breakdowns")
    def _breakdowns_as_field_lists(self, value: list[Union[str, list[str]]]) -> list[list[str]]:
        """Each breakdown as its list of fields in dumps (results files): a list mixing strings and lists
        cannot be read by Arrow, so `datasets`' JSON reader (and lm-eval's tracker) could not load the file."""
        return [[key] if isinstance(key, str) else list(key) for key in value]

    def headline(self) -> str:
        """The headline metric's name (the first flagged one, else the first)."""
        for m in self.metrics:
            if m.headline:
                return m.name
        return self.metrics[0].name


class GroupHooksConfig(_Strict):
    """Group hooks: aggregate(task_results: dict[task, results entry]) -> dict of tables across members."""

    aggregate: Optional[str] = None


class GroupMetric(_Strict):
    """One entry of lm-eval's `aggregate_metric_list`: the group's value of `metric` under each filter of
    `filter_list` (its key `metric,filter`), the members' values averaged (by their sample counts with
    `weight_by_size`), or `aggregation`, a function reference called as lm-eval calls it:
    `fn(values, sizes, weight_by_size)`."""

    metric: str
    aggregation: str = "mean"
    weight_by_size: bool = False
    filter_list: list[str] = Field(default_factory=lambda: ["none"])


class GroupConfig(_Strict):
    """A group runs its member tasks and aggregates their headline metrics (sample-weighted mean), or, with an
    `aggregate_metric_list`, every metric it lists (GroupMetric)."""

    group: str
    task: list[str]
    version: Union[int, float, str] = 1
    description: str = ""
    aggregate: Literal["sample_weighted", "task_mean"] = "sample_weighted"
    aggregate_metric_list: list[GroupMetric] = Field(default_factory=list)
    hooks: GroupHooksConfig = Field(default_factory=GroupHooksConfig)
    groups: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


def _format_validation(path: str, exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")  # our validators' own sentences, as they wrote them
        if err["type"] == "extra_forbidden":
            msg = "unknown field (check its spelling; see docs/plugins.md for the schema)"
        elif err["type"] == "missing":
            msg = "required field is missing"
        got = err.get("input")
        extra = (
            f" (got {got!r})"
            if err["type"] not in ("missing", "extra_forbidden", "value_error") and not isinstance(got, dict)
            else ""
        )
        lines.append(f"{path}: field '{loc}': {msg}{extra}")
    return "\n".join(lines)


def parse_task_config(raw: dict, path: str) -> Union[TaskConfig, GroupConfig]:
    """Validate a raw config dict; ConfigError names the file and each bad field."""
    data = {k: v for k, v in raw.items() if k != "variants"}
    model = GroupConfig if ("group" in data and isinstance(data.get("task"), list)) else TaskConfig
    if model is GroupConfig and ("aggregate_metric_list" in data or isinstance(data.get("metadata"), list)):
        data = lmms.translate_group(data, path)
    elif model is TaskConfig and lmms.is_lmms_config(data):
        data = lmms.translate(data, path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_validation(path, exc)) from None
