"""The public API for plugin authors: everything a task, model, metric or builder plugin needs.

Built-in plugins import only from here, the other public modules (`harness.hookspecs` for the cheap hook
marker, `harness.frames` for plugins that read or write video, `harness.report` for report sections) and
`metrics`, exactly as third-party plugins do; tests/test_core_public_api.py keeps them there.
"""

import functools
import os

from harness.config.run import parse_kv
from harness.config.schema import GroupConfig, MetricConfig, TaskConfig
from harness.contract.builder import Builder, DemoDataset, add_progress_flag, out_of_range
from harness.contract.hooks import (
    Aggregate,
    AnswerSpace,
    BuildRequest,
    Calibration,
    DocToChoice,
    DocToMessages,
    DocToTarget,
    DocToText,
    DocToVisual,
    DroppedRow,
    FilterClass,
    GroupAggregate,
    GroupMetricAggregation,
    Loader,
    ModelMethods,
    OracleAnswer,
    OracleReply,
    Parse,
    Parsed,
    PatternsHook,
    PrepareScoring,
    ProcessDocs,
    ProcessResults,
    Score,
    Target,
)
from harness.contract.importer import ImportedRun, Importer, file_sha256
from harness.contract.messages import (
    Capabilities,
    ImagePart,
    Message,
    Part,
    Request,
    Response,
    TaskInfo,
    TextPart,
    VideoPart,
    label_text,
)
from harness.contract.model import Model, PartialGeneration, Result
from harness.data.archives import ArchiveError, archive_stem, is_archive, is_unpacked, unpack_archive
from harness.data.hub import checkpoint_kwargs
from harness.data.local_split import read_jsonl_rows
from harness.data.media import Segment, VideoRef
from harness.data.task import MediaPathError, Task, safe_media_path
from harness.errors import (
    ConfigError,
    DataError,
    GenerationTimeout,
    HarnessError,
    HookContractError,
    ModelArgsError,
    ModelLoadError,
    PluginConflictError,
    UnknownNameError,
    UnsuitableModelError,
)
from harness.evaluation import evaluate
from harness.files import (
    MAX_DATA_FILE_BYTES,
    atomic_path,
    open_regular,
    read_json_file,
    read_text_file,
    write_atomic,
)
from harness.frames.content_hash import media_identity
from harness.frames.spec import MAX_FRAME_COUNT, FrameSpec
from harness.hookspecs import hookimpl
from harness.plugins.loading import ENV_VAR, installed_plugins, load_plugins
from harness.plugins.registry import Registry, resolve_reference
from harness.results.reading import (
    ResultsFileError,
    SamplesFileError,
    iter_samples,
    read_results,
    read_samples,
    samples_file_of,
)


@functools.lru_cache(maxsize=8)
def _loaded(include_paths: tuple[str, ...], plugins_env: str | None, installed: tuple) -> Registry:
    """The registry for one key; the arguments are the key only (load_plugins reads the same state itself)."""
    return load_plugins(include_paths).registry


def registry(include_paths: tuple = ()) -> Registry:
    """The registry filled by every installed plugin: how builders and plugins reach registered models,
    builder parts, metrics or judges by name (`registry().get("model", name).load()`). Loaded once per process
    for what determines it (the include paths, HARNESS_PLUGINS, the plugins installed now:
    `harness.plugins.loading.installed_plugins`), so a plugin installed or removed later is never missed."""
    key = (tuple(str(p) for p in include_paths), os.environ.get(ENV_VAR), installed_plugins())
    return _loaded(*key)


__all__ = [
    "Aggregate",
    "AnswerSpace",
    "ArchiveError",
    "BuildRequest",
    "Builder",
    "Calibration",
    "Capabilities",
    "ConfigError",
    "DataError",
    "DemoDataset",
    "DocToChoice",
    "DocToMessages",
    "DocToTarget",
    "DocToText",
    "DocToVisual",
    "DroppedRow",
    "FilterClass",
    "FrameSpec",
    "GroupAggregate",
    "GroupConfig",
    "GroupMetricAggregation",
    "GenerationTimeout",
    "HarnessError",
    "HookContractError",
    "ImagePart",
    "ImportedRun",
    "Importer",
    "Loader",
    "MediaPathError",
    "Message",
    "MetricConfig",
    "Model",
    "ModelArgsError",
    "ModelLoadError",
    "ModelMethods",
    "OracleAnswer",
    "OracleReply",
    "Parse",
    "Parsed",
    "Part",
    "PartialGeneration",
    "PatternsHook",
    "PluginConflictError",
    "PrepareScoring",
    "ProcessDocs",
    "ProcessResults",
    "Request",
    "Response",
    "Result",
    "ResultsFileError",
    "SamplesFileError",
    "Score",
    "Segment",
    "Target",
    "Task",
    "TaskConfig",
    "TaskInfo",
    "TextPart",
    "UnknownNameError",
    "UnsuitableModelError",
    "VideoPart",
    "VideoRef",
    "add_progress_flag",
    "out_of_range",
    "archive_stem",
    "atomic_path",
    "open_regular",
    "read_json_file",
    "read_text_file",
    "MAX_DATA_FILE_BYTES",
    "MAX_FRAME_COUNT",
    "checkpoint_kwargs",
    "evaluate",
    "file_sha256",
    "hookimpl",
    "is_archive",
    "is_unpacked",
    "iter_samples",
    "label_text",
    "media_identity",
    "parse_kv",
    "read_jsonl_rows",
    "read_results",
    "read_samples",
    "resolve_reference",
    "safe_media_path",
    "samples_file_of",
    "unpack_archive",
    "write_atomic",
]
